package io.headscope.model.decoders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.core.Head;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.Engine;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Llama, Qwen2 and Mistral from tiny checkpoints in the hub's layout against {@link DecoderReference}, a
 * float64 forward pass written from transformers' equations: every map entry within the float32 error
 * bound the reference derives for it ({@link DecoderReference#LAMBDA} standard deviations of the error's
 * first-order propagation; every bound under 1e-4), the ids as worked out by hand from the
 * hand-written tokenizer. Each test exercises a part: grouped-query attention and Llama 3's rope_scaling
 * on a bf16 sharded Llama, biases and a tied head on an fp16 Qwen2, a sliding window and multi-query
 * attention on a Mistral.
 */
class DecoderFamiliesTest {
  @TempDir Path dir;

  /** Llama 3's scaling at a tiny size: original 64 positions, low 1, high 8, so wavelengths above 64 are
   * divided by 8, those below 8 kept, those between blended (inverse frequencies 1, 0.1, 0.01, 0.001 at
   * theta 10000 and dh 8: wavelengths 6.3, 63, 628, 6283: one kept, one blended, two divided). */
  static final double[] LLAMA3 = {8, 1, 8, 64};

  static TinyDecoder.Spec llama(double[] scaling) {
    return new TinyDecoder.Spec("llama", 2, 32, 4, 2, 48, 272, 10000, scaling, 0, false, false, "BF16", 2, 1e-5);
  }

  static TinyDecoder.Spec qwen2() {
    return new TinyDecoder.Spec("qwen2", 2, 32, 4, 2, 48, 272, 1000000, null, 0, true, true, "F16", 1, 1e-6);
  }

  static TinyDecoder.Spec mistral(int window) {
    return new TinyDecoder.Spec("mistral", 2, 32, 4, 1, 48, 272, 10000, null, window, false, false, "BF16", 1, 1e-5);
  }

  static TinyDecoder.Spec gemma() {
    return new TinyDecoder.Spec("gemma", 2, 32, 4, 1, 48, 272, 10000, null, 0, false, true, "BF16", 1, 1e-6);
  }

  /** Runs the engine through the same doors as {@code ./headscope attention --model DIR}. */
  private Checked check(TinyDecoder.Spec spec, long seed, String name) {
    TinyDecoder m = new TinyDecoder(spec, seed);
    Path folder = m.writeTo(dir.resolve(name));
    try (BertModel model = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      Encoding e = model.encode(HandLlamaTokenizer.TEXT, null);
      AttentionTrace t = model.maps(List.of(e)).get(0);
      DecoderReference.Result ref = DecoderReference.run(m, e.ids());
      double worst = 0;
      double widest = 0;
      double ratio = 0;
      for (int l = 0; l < spec.layers(); l++) {
        for (int h = 0; h < spec.heads(); h++) {
          float[][] map = t.map(new Head(l, h));
          for (int q = 0; q < map.length; q++) {
            for (int k = 0; k < map.length; k++) {
              double diff = Math.abs(map[q][k] - ref.attention()[l][h][q][k]);
              double sigma = ref.sigma()[l][h][q][k];
              double bound = DecoderReference.LAMBDA * sigma;
              assertThat(diff).as("%s layer %d head %d query %d key %d", name, l, h, q, k).isLessThanOrEqualTo(bound);
              worst = Math.max(worst, diff);
              widest = Math.max(widest, bound);
              ratio = sigma > 0 ? Math.max(ratio, diff / sigma) : ratio;
            }
          }
        }
      }
      System.out.printf("%s: max |engine - reference| %.3g, widest derived bound %.3g, largest error in standard "
          + "deviations %.2f%n", name, worst, widest, ratio);
      assertThat(widest).as("the derived bound itself").isLessThan(1e-4);
      RunResult r = model.run(RunRequest.of(e).read(Readouts.none().withMaskedLm(Readouts.NEXT_TOKEN)));
      float[] next = r.maskedLm().get(0).get(0).probabilities();
      return new Checked(e, t, ref, worst, widest, next);
    }
  }

  record Checked(Encoding encoding, AttentionTrace trace, DecoderReference.Result ref, double worst, double widest,
      float[] next) {}

  @Test
  void llamaBf16ShardedWithGroupedQueriesAndLlama3ScalingMatchesTheReference() {
    Checked c = check(llama(LLAMA3), 41, "llama");
    assertThat(c.encoding().ids()).containsExactly(HandLlamaTokenizer.TEXT_IDS);
    assertThat(Files.exists(dir.resolve("llama/model.safetensors"))).isFalse();
    assertThat(c.trace().heads()).isEqualTo(4); // one map per query head, though only 2 key/value heads
    // the next token: the engine's most probable is the reference's (whose top two differ by far more
    // than any float32 error at this size)
    double[] logits = c.ref().lastLogits();
    int best = argMax(logits);
    assertThat(argMax(c.next())).isEqualTo(best);
  }

  /**
   * A long input's MLP runs a few token rows at a time (BertEncoder#ffn): here chunks of 2 rows of the 9-token
   * input (the gate and up products, alive together, are 2 x 48 wide), and the maps of the layer after it
   * still match the float64 reference within its derived bound, the next token too (a chunk's rows written to the
   * wrong place, or a chunk left out, puts layer 1's maps far outside it). The chunk sizes themselves:
   * BertEncoderChunksTest.
   */
  @Test
  void aLongInputsMlpRunAFewRowsAtATimeStillMatchesTheReference() {
    long old = Engine.mlpChunkCells(2 * 2 * 48);
    try {
      Checked c = check(llama(LLAMA3), 41, "llama-mlp-rows");
      assertThat(argMax(c.next())).isEqualTo(argMax(c.ref().lastLogits()));
    } finally {
      Engine.mlpChunkCells(old);
    }
  }

  @Test
  void groupedQueryHeadsOfOneGroupShareKeysButNotMaps() {
    Checked c = check(llama(null), 43, "llama-gqa");
    // heads 0 and 1 read key/value head 0: same keys, their own queries, so different maps
    float[][] a = c.trace().map(new Head(0, 0));
    float[][] b = c.trace().map(new Head(0, 1));
    assertThat(a).isNotEqualTo(b);
  }

  @Test
  void llama3ScalingChangesTheMapsAndHitsAllThreeRegions() {
    double[] plain = DecoderReference.inverseFrequencies(10000, 8, null);
    double[] scaled = DecoderReference.inverseFrequencies(10000, 8, LLAMA3);
    assertThat(scaled[0]).isEqualTo(plain[0]); // wavelength 6.3 < 64 / 8: kept
    assertThat(scaled[1]).isStrictlyBetween(plain[1] / 8, plain[1]); // 63 between 8 and 64: blended
    assertThat(scaled[2]).isEqualTo(plain[2] / 8); // 628 > 64: divided
    assertThat(scaled[3]).isEqualTo(plain[3] / 8);
    Checked with = check(llama(LLAMA3), 44, "scaled");
    Checked without = check(llama(null), 44, "plain");
    double change = 0;
    for (int q = 0; q < with.trace().tokens().size(); q++) {
      for (int k = 0; k <= q; k++) {
        change = Math.max(change, Math.abs(with.trace().map(new Head(1, 2))[q][k] - without.trace().map(new Head(1, 2))[q][k]));
      }
    }
    assertThat(change).as("scaling the rotary frequencies moves the maps").isGreaterThan(1e-3);
  }

  @Test
  void qwen2Fp16WithBiasesAndTiedHeadMatchesTheReferenceWithoutBos() {
    Checked c = check(qwen2(), 42, "qwen2");
    long[] noBos = java.util.Arrays.copyOfRange(HandLlamaTokenizer.TEXT_IDS, 1, HandLlamaTokenizer.TEXT_IDS.length);
    assertThat(c.encoding().ids()).containsExactly(noBos);
    assertThat(argMax(c.next())).isEqualTo(argMax(c.ref().lastLogits()));
  }

  @Test
  void mistralSeesExactlyItsWindowWithOneKeyValueHead() {
    int window = 3;
    Checked c = check(mistral(window), 45, "mistral");
    for (int l = 0; l < 2; l++) {
      for (int h = 0; h < 4; h++) {
        float[][] map = c.trace().map(new Head(l, h));
        for (int q = 0; q < map.length; q++) {
          for (int k = 0; k < map.length; k++) {
            boolean seen = q - window < k && k <= q;
            if (seen) {
              assertThat(map[q][k]).isPositive();
            } else {
              assertThat(map[q][k]).as("query %d key %d", q, k).isZero();
            }
          }
        }
      }
    }
  }

  @Test
  void gemmaWithScaledEmbeddingsUnitOffsetNormsAndGegluMatchesTheReference() {
    Checked c = check(gemma(), 47, "gemma");
    assertThat(c.encoding().ids()).containsExactly(HandLlamaTokenizer.TEXT_IDS);
    assertThat(argMax(c.next())).isEqualTo(argMax(c.ref().lastLogits()));
  }

  @Test
  void aWindowAsLongAsTheInputIsNoWindow() {
    Checked windowed = check(mistral(64), 46, "wide");
    Checked none = check(mistral(0), 46, "none");
    assertThat(windowed.trace().map(new Head(1, 3))).isDeepEqualTo(none.trace().map(new Head(1, 3)));
  }

  @Test
  void aMissingShardIsOneLine() throws Exception {
    Path folder = new TinyDecoder(llama(null), 1).writeTo(dir.resolve("broken"));
    Files.delete(folder.resolve("model-00002-of-00002.safetensors"));
    assertThatThrownBy(() -> BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder)))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("model-00002-of-00002.safetensors")
        .hasMessageNotContaining("\n");
  }

  @Test
  void anUnsupportedRopeScalingIsRefused() throws Exception {
    Path folder = new TinyDecoder(llama(null), 1).writeTo(dir.resolve("yarn"));
    Path config = folder.resolve("config.json");
    Files.writeString(config, Files.readString(config).replace("\"rope_scaling\" : null",
        "\"rope_scaling\" : {\"rope_type\" : \"yarn\", \"factor\" : 4.0}"));
    assertThatThrownBy(() -> BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder)))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("yarn");
  }

  /**
   * Writes the three tiny checkpoints and their reference maps into {@code -Dheadscope.decoderDump=DIR}
   * (skipped without it), for checking the reference by hand against transformers (docs/METHODS.md).
   */
  @Test
  void dumpForTransformers() throws Exception {
    String out = System.getProperty("headscope.decoderDump");
    org.junit.jupiter.api.Assumptions.assumeTrue(out != null, "set -Dheadscope.decoderDump=DIR to write the dump");
    Path root = Path.of(out);
    Object[][] cases = {{"llama", llama(LLAMA3), 41L}, {"qwen2", qwen2(), 42L}, {"mistral", mistral(3), 45L},
        {"gemma", gemma(), 47L}};
    for (Object[] c : cases) {
      TinyDecoder m = new TinyDecoder((TinyDecoder.Spec) c[1], (Long) c[2]);
      Path folder = m.writeTo(root.resolve((String) c[0]));
      long[] ids = c[0].equals("qwen2")
          ? java.util.Arrays.copyOfRange(HandLlamaTokenizer.TEXT_IDS, 1, HandLlamaTokenizer.TEXT_IDS.length)
          : HandLlamaTokenizer.TEXT_IDS;
      DecoderReference.Result ref = DecoderReference.run(m, ids);
      java.util.Map<String, Object> dump = new java.util.LinkedHashMap<>();
      dump.put("text", HandLlamaTokenizer.TEXT);
      dump.put("ids", ids);
      dump.put("attention", ref.attention());
      dump.put("lastLogits", ref.lastLogits());
      new com.fasterxml.jackson.databind.ObjectMapper().writeValue(folder.resolve("reference.json").toFile(), dump);
    }
  }

  private static int argMax(double[] v) {
    int best = 0;
    for (int i = 1; i < v.length; i++) {
      best = v[i] > v[best] ? i : best;
    }
    return best;
  }

  private static int argMax(float[] v) {
    int best = 0;
    for (int i = 1; i < v.length; i++) {
      best = v[i] > v[best] ? i : best;
    }
    return best;
  }
}
