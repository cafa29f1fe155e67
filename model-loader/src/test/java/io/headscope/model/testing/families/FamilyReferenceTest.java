package io.headscope.model.testing.families;

import io.headscope.model.testing.ReferenceSafetensors;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.MaskPrediction;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The yardstick checked: its own invariants, BERT against the TensorFlow-validated engine, a GPT-2 done on paper. */
class FamilyReferenceTest {
  @TempDir Path dir;

  static List<String> modelTypes() {
    return TinyFamilyCheckpoint.MODEL_TYPES;
  }

  /** Ids that avoid each family's padding id (RoBERTa's 1 would change the position ids). */
  private static final long[] IDS = {0, 5, 17, 3, 9, 30, 2, 11, 7};

  @ParameterizedTest
  @MethodSource("modelTypes")
  void attentionRowsAreDistributionsAndGpt2SeesNoFuture(String type) {
    TinyFamilyCheckpoint ckpt = TinyFamilyCheckpoint.create(type, 42);
    ReferenceForward.Result r = ReferenceForward.run(ckpt.writeTo(dir), IDS);
    TinyFamilyCheckpoint.Shape s = ckpt.shape();
    assertThat(r.attention()).hasNumberOfRows(s.layers());
    double maxOffDiagonal = 0;
    for (double[][][] layer : r.attention()) {
      assertThat(layer).hasNumberOfRows(s.heads());
      for (double[][] map : layer) {
        assertThat(map).hasNumberOfRows(IDS.length);
        for (int q = 0; q < IDS.length; q++) {
          assertThat(Arrays.stream(map[q]).sum()).isCloseTo(1.0, within(1e-12));
          for (int k = 0; k < IDS.length; k++) {
            assertThat(map[q][k]).isBetween(0.0, 1.0);
            if (type.equals("gpt2") && k > q) {
              assertThat(map[q][k]).as("GPT-2 query %d key %d", q, k).isEqualTo(0.0);
            }
            maxOffDiagonal = Math.max(maxOffDiagonal, k == q ? 0 : map[q][k]);
          }
        }
      }
    }
    // Not saturated: some attention goes off the diagonal, and no row is one-hot everywhere.
    assertThat(maxOffDiagonal).isGreaterThan(0.2);
    assertThat(r.lastHidden()).hasNumberOfRows(IDS.length);
    assertThat(r.lastHidden()[0]).hasSize(s.hidden());
    assertThat(r.logits()).hasNumberOfRows(IDS.length);
    assertThat(r.logits()[0]).hasSize(s.vocab());
  }

  @ParameterizedTest
  @MethodSource("modelTypes")
  void bareModelGivesTheSameMapsAndHiddenStatesButNoLogits(String type) {
    ReferenceForward.Result full = ReferenceForward.run(TinyFamilyCheckpoint.create(type, 7).writeTo(dir.resolve("full")), IDS);
    ReferenceForward.Result bare =
        ReferenceForward.run(TinyFamilyCheckpoint.create(type, 7).bare().writeTo(dir.resolve("bare")), IDS);
    assertThat(bare.logits()).isNull();
    assertThat(bare.attention()).isDeepEqualTo(full.attention());
    assertThat(bare.lastHidden()).isDeepEqualTo(full.lastHidden());
  }

  @ParameterizedTest
  @MethodSource("modelTypes")
  void leavingOutTheTiedDecoderChangesNothing(String type) {
    ReferenceForward.Result withCopy = ReferenceForward.run(TinyFamilyCheckpoint.create(type, 8).writeTo(dir.resolve("a")), IDS);
    ReferenceForward.Result tiedOnly =
        ReferenceForward.run(TinyFamilyCheckpoint.create(type, 8).omitTiedWeights().writeTo(dir.resolve("b")), IDS);
    assertThat(tiedOnly.logits()).isDeepEqualTo(withCopy.logits());
  }

  @Test
  void gpt2AsOnTheHubRunsLikeTheLmHeadModel() {
    ReferenceForward.Result lm = ReferenceForward.run(TinyFamilyCheckpoint.create("gpt2", 9).writeTo(dir.resolve("lm")), IDS);
    ReferenceForward.Result hub =
        ReferenceForward.run(TinyFamilyCheckpoint.create("gpt2", 9).gpt2AsOnHub().writeTo(dir.resolve("hub")), IDS);
    assertThat(hub.attention()).isDeepEqualTo(lm.attention());
    assertThat(hub.logits()).isDeepEqualTo(lm.logits());
  }

  @ParameterizedTest
  @CsvSource({"bert", "roberta", "distilbert", "albert"})
  void anInt64PositionIdsBufferIsSkipped(String type) {
    TinyFamilyCheckpoint with = TinyFamilyCheckpoint.create(type, 10).withPositionIdsBuffer();
    Path folder = with.writeTo(dir.resolve("with"));
    assertThat(ReferenceSafetensors.read(folder.resolve("model.safetensors")).get(
        FamilyConfigs.basePrefix(type) + "embeddings.position_ids").dtype()).isEqualTo("I64");
    ReferenceForward.Result a = ReferenceForward.run(folder, IDS);
    ReferenceForward.Result b = ReferenceForward.run(TinyFamilyCheckpoint.create(type, 10).writeTo(dir.resolve("without")), IDS);
    assertThat(a.logits()).isDeepEqualTo(b.logits());
  }

  @Test
  void robertaPositionsStartAfterThePaddingIndex() {
    // create_position_ids_from_input_ids with padding_idx 1: real tokens count 2, 3, ...; a pad stays at 1.
    assertThat(ReferenceForward.robertaPositions(new long[] {0, 5, 1, 7}, 1)).containsExactly(2, 3, 1, 4);
  }

  @ParameterizedTest
  @CsvSource({"roberta", "xlm-roberta"})
  void robertaNeverReadsPositionRowsZeroAndOne(String type) {
    // Without padding the position ids are 2..n+1, so rows 0 and 1 of position_embeddings must not matter;
    // a reference that counted from 0 would change here.
    ReferenceForward.Result plain = ReferenceForward.run(TinyFamilyCheckpoint.create(type, 3).writeTo(dir.resolve("a")), IDS);
    int h = TinyFamilyCheckpoint.defaultShape(type).hidden();
    ReferenceForward.Result changed = ReferenceForward.run(TinyFamilyCheckpoint.create(type, 3)
        .edit("roberta.embeddings.position_embeddings.weight", w -> Arrays.fill(w, 0, 2 * h, 50f))
        .writeTo(dir.resolve("b")), IDS);
    assertThat(changed.logits()).isDeepEqualTo(plain.logits());
  }

  @Test
  void albertSharesOneLayerAcrossAllItsLayers() {
    // One group of one layer applied num_hidden_layers (3) times: three maps per head, all different
    // (each layer sees a different input), from a file holding a single layer's weights.
    TinyFamilyCheckpoint albert = TinyFamilyCheckpoint.create("albert", 4);
    assertThat(albert.writtenShapes().keySet()).noneMatch(n -> n.contains("albert_layers.1") || n.contains("groups.1"));
    ReferenceForward.Result r = ReferenceForward.run(albert.writeTo(dir), IDS);
    assertThat(r.attention()).hasNumberOfRows(3);
    assertThat(r.attention()[0][0]).isNotEqualTo(r.attention()[1][0]);
  }

  @ParameterizedTest
  @CsvSource({
    // math.erf of CPython (the C library's erf), an implementation independent of this one
    "0.5, 0.5204998778130465",
    "1.0, 0.8427007929497149",
    "2.0, 0.9953222650189527",
    "3.0, 0.9999779095030014",
    "-0.1, -0.1124629160182849",
    "0.001, 0.0011283787909692365",
    "4.5, 0.9999999998033839",
  })
  void erfIsGoodToTheLastDigits(double x, double expected) {
    assertThat(Erf.erf(x)).isCloseTo(expected, within(2e-16 + 4e-16 * Math.abs(expected)));
  }

  /**
   * A 1-layer, 1-head GPT-2 of width 2, set by hand, on ids [0, 1, 0].
   *
   * <p>wte: token 0 = (1, -1), token 1 = (-1, 1); wpe = 0; every LayerNorm gamma 1, beta 0, eps 1e-12, so
   * ln_1 leaves (1, -1) and (-1, 1) as they are (mean 0, variance 1). c_attn makes q = k = ln_1(x) and v = 0;
   * every other weight and bias is 0, so the residual stream stays x and ln_f(x) = x.
   *
   * <p>Scores q.k / sqrt(head_dim 2): same token 2 / sqrt 2 = +sqrt 2, different token -sqrt 2. Causal rows:
   * <ul>
   *   <li>query 0 sees key 0 only: (1, 0, 0);
   *   <li>query 1 (token 1): keys 0, 1 with scores (-sqrt2, +sqrt2): (1, e^{2 sqrt2}) / (1 + e^{2 sqrt2}),
   *       e^{2 sqrt2} = 16.9188, so (0.055807, 0.944193, 0);
   *   <li>query 2 (token 0): keys 0, 1, 2 with scores (+sqrt2, -sqrt2, +sqrt2): (1, e^{-2 sqrt2}, 1) / (2 +
   *       e^{-2 sqrt2}), e^{-2 sqrt2} = 0.059106, so (0.485648, 0.028705, 0.485648).
   * </ul>
   * Logits are ln_f(x) . wte rows (the tied head): token 0 gives (2, -2, 0), token 1 gives (-2, 2, 0).
   */
  @Test
  void handSetGpt2AttendsAsWorkedOutOnPaper() {
    TinyFamilyCheckpoint g = TinyFamilyCheckpoint.create("gpt2", new TinyFamilyCheckpoint.Shape(3, 2, 2, 1, 1, 4, 8), 0)
        .fillAll(0f)
        .edit("transformer.wte.weight", w -> System.arraycopy(new float[] {1, -1, -1, 1, 0, 0}, 0, w, 0, 6))
        .edit("transformer.h.0.ln_1.weight", w -> Arrays.fill(w, 1f))
        .edit("transformer.h.0.ln_2.weight", w -> Arrays.fill(w, 1f))
        .edit("transformer.ln_f.weight", w -> Arrays.fill(w, 1f))
        // Conv1D weight (in 2, out 6): columns 0-1 are q, 2-3 are k, 4-5 are v.
        .edit("transformer.h.0.attn.c_attn.weight", w -> {
          w[0 * 6 + 0] = 1; // q = h
          w[1 * 6 + 1] = 1;
          w[0 * 6 + 2] = 1; // k = h
          w[1 * 6 + 3] = 1;
        });
    g.config().put("layer_norm_epsilon", 1e-12);
    ReferenceForward.Result r = ReferenceForward.run(g.writeTo(dir), new long[] {0, 1, 0});

    double e = Math.exp(2 * Math.sqrt(2));
    double[][] expected = {
      {1, 0, 0},
      {1 / (1 + e), e / (1 + e), 0},
      {1 / (2 + 1 / e), (1 / e) / (2 + 1 / e), 1 / (2 + 1 / e)},
    };
    double[][] map = r.attention()[0][0];
    for (int q = 0; q < 3; q++) {
      for (int k = 0; k < 3; k++) {
        assertThat(map[q][k]).as("query %d key %d", q, k).isCloseTo(expected[q][k], within(1e-9));
      }
    }
    assertThat(map[1][0]).isCloseTo(0.055807, within(1e-6));
    assertThat(map[2][1]).isCloseTo(0.028705, within(1e-6));
    assertThat(r.lastHidden()[0]).containsExactly(new double[] {1, -1}, within(1e-9));
    assertThat(r.lastHidden()[1]).containsExactly(new double[] {-1, 1}, within(1e-9));
    assertThat(r.logits()[0]).containsExactly(new double[] {2, -2, 0}, within(1e-9));
    assertThat(r.logits()[1]).containsExactly(new double[] {-2, 2, 0}, within(1e-9));
  }

  /**
   * The reference's BERT path (shared with RoBERTa, XLM-R and ELECTRA layers, the ALBERT and DistilBERT
   * blocks, the embeddings, LayerNorm, erf GELU and the MLM transform) against HeadScope's engine, itself
   * validated against Google's TensorFlow graph.
   */
  @Test
  void bertAgreesWithTheTensorFlowValidatedEngine() {
    ModelFiles files = TinyBert.create(2, 4, 5).writeTo(dir.resolve("tiny-bert"));
    compareWithEngine(files, dir.resolve("tiny-bert"));
  }

  /** The tanh GELU path (gelu_new, ALBERT's and GPT-2's activation) against the engine's TANH GELU. */
  @Test
  void bertWithTanhGeluAgreesWithTheEngine() {
    ModelFiles files = TinyBert.create(new io.headscope.model.core.BertConfig(TinyBert.VOCAB.size(), 12, 2, 3, 24,
        "gelu_new", 64, 2, 1e-12, List.of()), 6).writeTo(dir.resolve("tiny-bert-tanh"));
    compareWithEngine(files, dir.resolve("tiny-bert-tanh"));
  }

  /** This class's own BERT folder (no pooler, tied decoder written) read by the engine and the reference. */
  @Test
  void familyBertFolderAgreesWithTheEngine() throws Exception {
    Path tok = dir.resolve("tok");
    TinyBert.create(1, 1, 1).writeTo(tok);
    Path ours = dir.resolve("family-bert");
    TinyFamilyCheckpoint.create("bert", new TinyFamilyCheckpoint.Shape(TinyBert.VOCAB.size(), 16, 16, 2, 4, 32, 40), 11)
        .writeTo(ours);
    Files.copy(tok.resolve("tokenizer.json"), ours.resolve("tokenizer.json"));
    Files.copy(tok.resolve("vocab.txt"), ours.resolve("vocab.txt"));
    compareWithEngine(new ModelFiles("family-bert", ours.resolve("config.json"), ours.resolve("model.safetensors"),
        ours.resolve("tokenizer.json")), ours);
  }

  private static void compareWithEngine(ModelFiles files, Path folder) {
    List<String> tokens = List.of("[CLS]", "the", "cat", "[MASK]", "on", "the", "mat", "[MASK]", ".", "[SEP]");
    long[] ids = tokens.stream().mapToLong(TinyBert.VOCAB::indexOf).toArray();
    assertThat(ids).doesNotContain(-1L);
    Encoding input = new Encoding(tokens, ids, new long[ids.length], -1, 0);
    ReferenceForward.Result ref = ReferenceForward.run(folder, ids);
    try (BertModel model = BertModel.load(files)) {
      AttentionTrace t = model.trace(input);
      double attn = ReferenceDiff.maxAbs(ref.attention(), t.attention());
      double hidden = ReferenceDiff.maxAbs(ref.lastHidden(), t.hiddenStates());
      // The engine reports masked-LM probabilities at [MASK]; the reference's logits go through a softmax.
      double probs = 0;
      List<Integer> masks = new ArrayList<>();
      for (MaskPrediction p : t.predictions()) {
        masks.add(p.position());
        double[] softmax = softmax(ref.logits()[p.position()]);
        for (int v = 0; v < softmax.length; v++) {
          probs = Math.max(probs, Math.abs(softmax[v] - p.probabilities()[v]));
        }
      }
      System.out.printf("%s: max |A - A_engine| = %.3g, |h - h_engine| = %.3g, |p - p_engine| = %.3g%n",
          files.name(), attn, hidden, probs);
      assertThat(masks).containsExactly(3, 7);
      assertThat(attn).isLessThan(1e-5);
      assertThat(hidden).isLessThan(1e-4);
      assertThat(probs).isLessThan(1e-4);
    }
  }

  private static double[] softmax(double[] logits) {
    double max = Arrays.stream(logits).max().orElseThrow();
    double[] p = Arrays.stream(logits).map(x -> Math.exp(x - max)).toArray();
    double sum = Arrays.stream(p).sum();
    return Arrays.stream(p).map(x -> x / sum).toArray();
  }
}
