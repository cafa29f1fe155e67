package io.headscope.model.encoderdecoders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.BertModel;
import io.headscope.model.EncoderDecoderModel;
import io.headscope.model.EncoderDecoderTrace;
import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.EncoderDecoderMask;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.core.RelativeBuckets;
import io.headscope.model.engine.EncoderDecoderRun;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * T5 and BART from tiny checkpoints in the hub's layout against {@link EncoderDecoderReference}, a float64
 * forward pass written from transformers' equations: every map of the three kinds (encoder, decoder, cross)
 * within the float32 error bound the reference derives for it ({@link EncoderDecoderReference#LAMBDA} standard
 * deviations; every bound under 1e-4), the ids as worked out by hand from the hand-written tokenizers, and
 * the logits at every target position within their bound, with the same most probable next token.
 */
class EncoderDecoderFamiliesTest {
  @TempDir Path dir;

  /** T5 v1.0: relu, tied head (times d^-0.5), F32; d_kv 6 so that the heads' width (24) is not d_model (32). */
  static TinyEncoderDecoder.Spec t5() {
    return new TinyEncoderDecoder.Spec(true, 2, 2, 32, 4, 6, 48, 24, false, true, false, 8, 16, 0, "F32");
  }

  /** T5 v1.1 (Flan-T5's layout): gated-gelu, untied lm_head, BF16. */
  static TinyEncoderDecoder.Spec t5v11() {
    return new TinyEncoderDecoder.Spec(true, 2, 3, 32, 4, 8, 40, 24, true, false, false, 8, 16, 0, "BF16");
  }

  /** BART: post-LayerNorm, learned positions offset by 2, scale_embedding, GELU, F16; d_model 32, 2 heads of 16. */
  static TinyEncoderDecoder.Spec bart() {
    return new TinyEncoderDecoder.Spec(false, 2, 2, 32, 2, 16, 48, 272, false, true, true, 0, 0, 16, "F16");
  }

  /** BART's source and target with the RoBERTa-like tokenizer, ids by hand (see {@code HandTokenizers}). */
  static final String BART_SOURCE = "a b c d caf";
  static final long[] BART_SOURCE_IDS = {0, 101, 267, 268, 269, 36, 262, 2};
  static final String BART_TARGET = "caf d a";
  static final long[] BART_TARGET_IDS = {0, 262, 269, 266, 2};

  record Checked(EncoderDecoderTrace trace, EncoderDecoderRun run, EncoderDecoderReference.Result ref) {}

  private Checked check(TinyEncoderDecoder.Spec spec, long seed, String name, String source, String target) {
    TinyEncoderDecoder m = new TinyEncoderDecoder(spec, seed);
    Path folder = m.writeTo(dir.resolve(name));
    try (EncoderDecoderModel model = EncoderDecoderModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      EncoderDecoderTrace t = model.trace(source, target, EncoderDecoderMask.NONE, 3);
      EncoderDecoderRun run = model.run(t.source().ids(), t.target().ids(), EncoderDecoderMask.NONE, true);
      EncoderDecoderReference.Result ref = EncoderDecoderReference.run(m, t.source().ids(), t.target().ids());
      double[] stats = new double[3];
      compare(name + " encoder", t.encoder(), ref.encoder(), ref.encoderSigma(), stats);
      compare(name + " decoder", t.decoder(), ref.decoder(), ref.decoderSigma(), stats);
      compare(name + " cross", t.cross(), ref.cross(), ref.crossSigma(), stats);
      System.out.printf("%s: max |engine - reference| %.3g, widest derived bound %.3g, largest error in standard "
          + "deviations %.2f%n", name, stats[0], stats[1], stats[2]);
      assertThat(stats[1]).as("the derived bound itself").isLessThan(1e-4);
      // the logits at every target position within their bound; the most probable next token the reference's
      // wherever its top two are further apart than both their bounds
      double worstLogit = 0;
      for (int i = 0; i < run.logits().length; i++) {
        double[] r = ref.logits()[i];
        for (int v = 0; v < r.length; v++) {
          double diff = Math.abs(run.logits()[i][v] - r[v]);
          assertThat(diff).as("%s logit at target %d token %d", name, i, v)
              .isLessThanOrEqualTo(EncoderDecoderReference.LAMBDA * ref.logitsSigma()[i][v]);
          worstLogit = Math.max(worstLogit, diff);
        }
        int best = argMax(r);
        int second = best == 0 ? 1 : 0;
        for (int v = 0; v < r.length; v++) {
          second = v != best && r[v] > r[second] ? v : second;
        }
        double margin = EncoderDecoderReference.LAMBDA * (ref.logitsSigma()[i][best] + ref.logitsSigma()[i][second]);
        if (r[best] - r[second] > margin) {
          assertThat(t.next().get(i).get(0).id()).as("%s next token after target position %d", name, i).isEqualTo(best);
        }
      }
      System.out.printf("%s: max |logit - reference| %.3g%n", name, worstLogit);
      return new Checked(t, run, ref);
    }
  }

  private static void compare(String what, float[][][][] engine, double[][][][] ref, double[][][][] sigma, double[] stats) {
    assertThat(engine.length).as(what + " layers").isEqualTo(ref.length);
    for (int l = 0; l < ref.length; l++) {
      assertThat(engine[l].length).as(what + " heads").isEqualTo(ref[l].length);
      for (int h = 0; h < ref[l].length; h++) {
        assertThat(engine[l][h].length).isEqualTo(ref[l][h].length);
        for (int q = 0; q < ref[l][h].length; q++) {
          assertThat(engine[l][h][q].length).isEqualTo(ref[l][h][q].length);
          for (int k = 0; k < ref[l][h][q].length; k++) {
            double diff = Math.abs(engine[l][h][q][k] - ref[l][h][q][k]);
            double s = sigma[l][h][q][k];
            double bound = EncoderDecoderReference.LAMBDA * s;
            assertThat(diff).as("%s layer %d head %d query %d key %d", what, l, h, q, k).isLessThanOrEqualTo(bound);
            stats[0] = Math.max(stats[0], diff);
            stats[1] = Math.max(stats[1], bound);
            stats[2] = s > 0 ? Math.max(stats[2], diff / s) : stats[2];
          }
        }
      }
    }
  }

  @Test
  void t5WithRelativeBucketsTiedHeadAndReluMatchesTheReference() {
    Checked c = check(t5(), 51, "t5", HandT5Tokenizer.SOURCE, HandT5Tokenizer.TARGET);
    assertThat(c.trace().source().ids()).containsExactly(HandT5Tokenizer.SOURCE_IDS);
    assertThat(c.trace().target().ids()).containsExactly(HandT5Tokenizer.TARGET_IDS); // ends with </s>, not shifted
    assertThat(c.trace().target().tokens()).endsWith("</s>");
    assertThat(c.trace().cross()[0][0]).hasNumberOfRows(7);
    assertThat(c.trace().cross()[0][0][0]).hasSize(7);
  }

  @Test
  void t5v11GatedGeluUntiedBf16WithMoreDecoderLayersMatchesTheReference() {
    Checked c = check(t5v11(), 52, "t5v11", HandT5Tokenizer.SOURCE, "a mat");
    assertThat(c.trace().target().ids()).containsExactly(7, 8, 1);
    assertThat(c.trace().decoder().length).isEqualTo(3);
    assertThat(c.trace().encoder().length).isEqualTo(2);
  }

  /** mT5 (model_type mt5) is T5 v1.1's layout under another name: the same folder read as mt5 gives the same maps. */
  @Test
  void mt5IsReadAsT5v11() throws Exception {
    TinyEncoderDecoder m = new TinyEncoderDecoder(t5v11(), 59);
    Path folder = m.writeTo(dir.resolve("mt5"));
    Path config = folder.resolve("config.json");
    java.nio.file.Files.writeString(config, java.nio.file.Files.readString(config).replace("\"t5\"", "\"mt5\"")
        .replace("T5ForConditionalGeneration", "MT5ForConditionalGeneration"));
    try (EncoderDecoderModel model = EncoderDecoderModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      EncoderDecoderRun r = model.run(HandT5Tokenizer.SOURCE_IDS, new long[] {7, 8, 1}, EncoderDecoderMask.NONE, false);
      EncoderDecoderReference.Result ref = EncoderDecoderReference.run(m, HandT5Tokenizer.SOURCE_IDS, new long[] {7, 8, 1});
      double[] stats = new double[3];
      compare("mt5 cross", r.cross(), ref.cross(), ref.crossSigma(), stats);
      assertThat(stats[1]).isLessThan(1e-4);
    }
  }

  @Test
  void bartWithLearnedPositionsScaledEmbeddingsAndPostLayerNormMatchesTheReference() {
    Checked c = check(bart(), 53, "bart", BART_SOURCE, BART_TARGET);
    assertThat(c.trace().source().ids()).containsExactly(BART_SOURCE_IDS);
    assertThat(c.trace().target().ids()).containsExactly(BART_TARGET_IDS); // <s> ... </s>, as the tokenizer gives it
  }

  @Test
  void theDecoderIsCausalAndEveryRowSumsToOne() {
    Checked c = check(bart(), 54, "bart-causal", BART_SOURCE, BART_TARGET);
    for (float[][] map : c.trace().decoder()[1]) {
      for (int q = 0; q < map.length; q++) {
        double sum = 0;
        for (int k = 0; k < map[q].length; k++) {
          if (k > q) {
            assertThat(map[q][k]).isZero();
          }
          sum += map[q][k];
        }
        assertThat(sum).isCloseTo(1, org.assertj.core.data.Offset.offset(1e-5));
      }
    }
  }

  /**
   * T5's buckets at t5-small's settings (32 buckets, distance 128), worked out by hand from the equation:
   * bidirectional, 16 buckets a side, offsets under 8 their own bucket, a later key's bucket 16 up; beyond,
   * {@code 8 + floor(ln(r / 8) / ln(16) * 8)}: 12 gives 8 + floor(1.17) = 9, 16 gives 8 + 2 = 10 (on the edge:
   * ln 2 / ln 16 is 1/4 in float32 too), 200 gives the last, 15. Causal (the decoder): 32 buckets for earlier
   * keys, under 16 their own, {@code 16 + floor(ln(r / 16) / ln(8) * 16)}: 20 gives 16 + floor(1.717) = 17;
   * later keys 0.
   */
  @Test
  void relativeBucketsAsWorkedOutByHand() {
    RelativeBuckets b = new RelativeBuckets(32, 128);
    assertThat(b.bucket(0, true)).isZero();
    assertThat(b.bucket(-3, true)).isEqualTo(3);
    assertThat(b.bucket(3, true)).isEqualTo(19);
    assertThat(b.bucket(-7, true)).isEqualTo(7);
    assertThat(b.bucket(-8, true)).isEqualTo(8);
    assertThat(b.bucket(-12, true)).isEqualTo(9);
    assertThat(b.bucket(12, true)).isEqualTo(25);
    assertThat(b.bucket(-16, true)).isEqualTo(10);
    assertThat(b.bucket(-200, true)).isEqualTo(15);
    assertThat(b.bucket(200, true)).isEqualTo(31);
    assertThat(b.bucket(-15, false)).isEqualTo(15);
    assertThat(b.bucket(-20, false)).isEqualTo(17);
    assertThat(b.bucket(5, false)).isZero();
    assertThat(b.bucket(-1000, false)).isEqualTo(31);
  }

  @Test
  void switchingOffCrossHeadsZeroesTheirMapsAndMovesTheOutputOnly() {
    TinyEncoderDecoder m = new TinyEncoderDecoder(t5(), 55);
    Path folder = m.writeTo(dir.resolve("t5-off"));
    try (EncoderDecoderModel model = EncoderDecoderModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      long[] s = HandT5Tokenizer.SOURCE_IDS;
      long[] t = HandT5Tokenizer.TARGET_IDS;
      EncoderDecoderRun on = model.run(s, t, EncoderDecoderMask.NONE, true);
      EncoderDecoderMask off = EncoderDecoderMask.NONE.with(AttentionKind.CROSS,
          HeadMask.of(Set.of(new Head(1, 2)), HeadMask.Mode.ZERO));
      EncoderDecoderRun r = model.run(s, t, off, true);
      for (float[] row : r.cross()[1][2]) {
        for (float v : row) {
          assertThat(v).isZero();
        }
      }
      // the encoder does not see the decoder's switches, nor do the layers below the head's
      assertThat(r.encoder()).isDeepEqualTo(on.encoder());
      assertThat(r.cross()[0]).isDeepEqualTo(on.cross()[0]);
      assertThat(r.cross()[1][1]).isDeepEqualTo(on.cross()[1][1]);
      assertThat(r.logits()).isNotEqualTo(on.logits());
      // an encoder head switched off moves the cross maps (they read the encoder's output)
      EncoderDecoderRun e = model.run(s, t, EncoderDecoderMask.NONE.with(AttentionKind.ENCODER,
          HeadMask.of(Set.of(new Head(0, 0)), HeadMask.Mode.ZERO)), false);
      assertThat(e.encoder()[0][1]).isDeepEqualTo(on.encoder()[0][1]); // the other heads of its layer as they were
      for (float[] row : e.encoder()[0][0]) {
        for (float v : row) {
          assertThat(v).isZero();
        }
      }
      assertThat(e.cross()[0][0]).isNotEqualTo(on.cross()[0][0]);
    }
  }

  /**
   * A decoder head switched off in uniform mode spreads each row over the keys its query may see: row i is 1 / (i +
   * 1) on keys 0..i and 0 after (causal), not 1 / T over every key; an encoder head's rows are 1 / S.
   */
  @Test
  void uniformSpreadsARowOverTheKeysItsQuerySees() {
    TinyEncoderDecoder m = new TinyEncoderDecoder(bart(), 58);
    Path folder = m.writeTo(dir.resolve("bart-uniform"));
    try (EncoderDecoderModel model = EncoderDecoderModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      EncoderDecoderMask mask = EncoderDecoderMask.NONE
          .with(AttentionKind.DECODER, HeadMask.of(Set.of(new Head(0, 1)), HeadMask.Mode.UNIFORM))
          .with(AttentionKind.ENCODER, HeadMask.of(Set.of(new Head(1, 0)), HeadMask.Mode.UNIFORM));
      EncoderDecoderRun r = model.run(BART_SOURCE_IDS, BART_TARGET_IDS, mask, false);
      float[][] dec = r.decoder()[0][1];
      for (int q = 0; q < dec.length; q++) {
        for (int k = 0; k < dec[q].length; k++) {
          assertThat(dec[q][k]).as("query %d key %d", q, k).isEqualTo(k <= q ? 1f / (q + 1) : 0f);
        }
      }
      for (float[] row : r.encoder()[1][0]) {
        for (float v : row) {
          assertThat(v).isEqualTo(1f / BART_SOURCE_IDS.length);
        }
      }
    }
  }

  @Test
  void theSingleStackModelRefusesAnEncoderDecoderInOneLine() {
    Path folder = new TinyEncoderDecoder(t5(), 56).writeTo(dir.resolve("t5-refused"));
    assertThatThrownBy(() -> BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder)))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("T5 encoder-decoder")
        .hasMessageContaining("--target")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aMissingCrossAttentionWeightIsOneLine() throws Exception {
    TinyEncoderDecoder m = new TinyEncoderDecoder(bart(), 57);
    m.weights.remove("model.decoder.layers.1.encoder_attn.k_proj.weight");
    Path folder = m.writeTo(dir.resolve("bart-broken"));
    assertThatThrownBy(() -> EncoderDecoderModel.load(new ModelRepository(dir.resolve("cache")).folder(folder)))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("model.decoder.layers.1.encoder_attn.k_proj.weight")
        .hasMessageNotContaining("\n");
  }

  /**
   * Writes the tiny checkpoints and their reference maps and logits into {@code -Dheadscope.encoderDecoderDump=DIR}
   * (skipped without it): for running the command line on them, and for checking the reference by hand
   * against transformers ({@code T5ForConditionalGeneration(source, decoder_input_ids=target)}).
   */
  @Test
  void dumpForTransformers() throws Exception {
    String out = System.getProperty("headscope.encoderDecoderDump");
    org.junit.jupiter.api.Assumptions.assumeTrue(out != null, "set -Dheadscope.encoderDecoderDump=DIR to write the dump");
    Path root = Path.of(out);
    Object[][] cases = {{"t5", t5(), 51L, HandT5Tokenizer.SOURCE_IDS, HandT5Tokenizer.TARGET_IDS},
        {"t5v11", t5v11(), 52L, HandT5Tokenizer.SOURCE_IDS, new long[] {7, 8, 1}},
        {"bart", bart(), 53L, BART_SOURCE_IDS, BART_TARGET_IDS}};
    for (Object[] c : cases) {
      TinyEncoderDecoder m = new TinyEncoderDecoder((TinyEncoderDecoder.Spec) c[1], (Long) c[2]);
      Path folder = m.writeTo(root.resolve((String) c[0]));
      EncoderDecoderReference.Result ref = EncoderDecoderReference.run(m, (long[]) c[3], (long[]) c[4]);
      java.util.Map<String, Object> dump = new java.util.LinkedHashMap<>();
      dump.put("ids", c[3]);
      dump.put("target_ids", c[4]);
      dump.put("encoder_attention", ref.encoder());
      dump.put("decoder_attention", ref.decoder());
      dump.put("cross_attention", ref.cross());
      dump.put("logits", ref.logits());
      new com.fasterxml.jackson.databind.ObjectMapper().writeValue(folder.getParent().resolve(c[0] + "-reference.json").toFile(), dump);
    }
  }

  private static int argMax(double[] v) {
    int best = 0;
    for (int i = 1; i < v.length; i++) {
      best = v[i] > v[best] ? i : best;
    }
    return best;
  }
}
