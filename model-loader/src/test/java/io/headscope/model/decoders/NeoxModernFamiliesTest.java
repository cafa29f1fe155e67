package io.headscope.model.decoders;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GPT-NeoX (Pythia) and ModernBERT from tiny checkpoints in the hub's layout against {@link NeoxModernReference},
 * a float64 forward pass written from transformers' equations: every map entry within {@link
 * DecoderReference#LAMBDA} standard deviations of the float32 error the reference propagates for it (every such
 * bound under 1e-4), the ids as worked out by hand, and the head's most probable token the reference's.
 */
class NeoxModernFamiliesTest {
  @TempDir Path dir;

  /** Pythia's parts at a tiny size: half of each 8-wide head turns (rotary_pct 0.5: 4 dimensions), fp16. */
  static TinyNeoxModern.Spec neox(boolean parallel) {
    return new TinyNeoxModern.Spec("gpt_neox", 2, 32, 4, 128, 272, "F16", 0.5, parallel, 10000, 0, 0, 0, 1e-5);
  }

  /**
   * ModernBERT's parts at a tiny size: 4 layers, global in layers 0 and 2 (every 2nd) with theta 40000, local in
   * 1 and 3 with theta 500 and local_attention 4 (keys within 2 of the query), bf16. None is ModernBertConfig's
   * default (3, 160000, 10000, 128), so the config's keys are what the engine runs.
   */
  static TinyNeoxModern.Spec modernBert() {
    return new TinyNeoxModern.Spec("modernbert", 4, 32, 4, 48, 272, "BF16", 1, false, 40000, 500, 2, 4, 1e-5);
  }

  record Checked(Encoding encoding, AttentionTrace trace, NeoxModernReference.Result ref, float[] probabilities) {}

  private Checked check(TinyNeoxModern.Spec spec, long seed, String name, String text) {
    return check(new TinyNeoxModern(spec, seed), name, text);
  }

  private Checked check(TinyNeoxModern m, String name, String text) {
    TinyNeoxModern.Spec spec = m.spec;
    Path folder = m.writeTo(dir.resolve(name));
    try (BertModel model = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      Encoding e = model.encode(text, null);
      AttentionTrace t = model.maps(List.of(e)).get(0);
      int at = spec.neox() ? e.ids().length - 1 : indexOf(e.ids(), HandModernTokenizer.MASK);
      NeoxModernReference.Result ref = spec.neox() ? NeoxModernReference.neox(m, e.ids(), at)
          : NeoxModernReference.modernBert(m, e.ids(), at);
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
      long target = spec.neox() ? Readouts.NEXT_TOKEN : model.tokenizer().maskId();
      RunResult r = model.run(RunRequest.of(e).read(Readouts.none().withMaskedLm(target)));
      return new Checked(e, t, ref, r.maskedLm().get(0).get(0).probabilities());
    }
  }

  @Test
  void pythiaWithParallelResidualPartialRotaryAndFusedPerHeadQkvMatchesTheReference() {
    Checked c = check(neox(true), 51, "neox", HandLlamaTokenizer.TEXT);
    assertThat(c.encoding().ids()).containsExactly(DecoderFolders.textIds("qwen2")); // no BOS, as Pythia's
    assertThat(argMax(c.probabilities())).isEqualTo(argMax(c.ref().logits()));
  }

  /**
   * A GPT-NeoX with {@code tie_word_embeddings} true predicts through {@code embed_in}, as transformers ties it:
   * without {@code embed_out} in the file, and with a stored {@code embed_out} that differs (ignored, as
   * transformers' tie_weights overwrites it), against the reference that unembeds with {@code embed_in}. The same
   * weights untied predict through their own {@code embed_out}: another distribution.
   */
  @Test
  void aTiedGptNeoxPredictsThroughItsInputEmbeddingsWithOrWithoutAStoredEmbedOut() {
    TinyNeoxModern tied = new TinyNeoxModern(neox(true), 54);
    tied.tied = true;
    TinyDecoder.Tensor own = tied.weights.remove("embed_out.weight");
    Checked without = check(tied, "neox-tied", HandLlamaTokenizer.TEXT);
    assertThat(argMax(without.probabilities())).isEqualTo(argMax(without.ref().logits()));
    tied.weights.put("embed_out.weight", own); // a stored copy that is not the input embeddings
    Checked with = check(tied, "neox-tied-stored", HandLlamaTokenizer.TEXT);
    assertThat(with.probabilities()).isEqualTo(without.probabilities());
    TinyNeoxModern untied = new TinyNeoxModern(neox(true), 54);
    Checked apart = check(untied, "neox-untied", HandLlamaTokenizer.TEXT);
    assertThat(argMax(apart.probabilities())).isEqualTo(argMax(apart.ref().logits()));
    assertThat(apart.probabilities()).isNotEqualTo(without.probabilities());
    assertThat(apart.trace().map(new Head(1, 1))).isDeepEqualTo(without.trace().map(new Head(1, 1)));
  }

  @Test
  void gptNeoxWithSequentialResidualMatchesTheReferenceAndDiffersFromParallel() {
    Checked sequential = check(neox(false), 52, "neox-seq", HandLlamaTokenizer.TEXT);
    Checked parallel = check(neox(true), 52, "neox-par", HandLlamaTokenizer.TEXT);
    // layer 0's maps read only the embeddings; layer 1's read what the residual kind made of layer 0
    assertThat(sequential.trace().map(new Head(0, 1))).isDeepEqualTo(parallel.trace().map(new Head(0, 1)));
    assertThat(sequential.trace().map(new Head(1, 1))).isNotEqualTo(parallel.trace().map(new Head(1, 1)));
  }

  @Test
  void modernBertWithAlternatingWindowsTwoThetasAndGegluMatchesTheReference() {
    Checked c = check(modernBert(), 53, "modernbert", HandModernTokenizer.TEXT);
    assertThat(c.encoding().ids()).containsExactly(HandModernTokenizer.TEXT_IDS);
    assertThat(argMax(c.probabilities())).isEqualTo(argMax(c.ref().logits()));
    int reach = 4 / 2;
    for (int l = 0; l < 4; l++) {
      boolean local = l % 2 != 0;
      for (int h = 0; h < 4; h++) {
        float[][] map = c.trace().map(new Head(l, h));
        for (int q = 0; q < map.length; q++) {
          for (int k = 0; k < map.length; k++) {
            if (local && Math.abs(q - k) > reach) {
              assertThat(map[q][k]).as("layer %d query %d key %d", l, q, k).isZero();
            } else {
              assertThat(map[q][k]).as("layer %d query %d key %d", l, q, k).isPositive();
            }
          }
        }
      }
    }
  }

  /**
   * A ModernBERT config as transformers 5 saves it ({@code layer_types} and {@code rope_parameters} by layer type, no
   * {@code global_rope_theta}, {@code local_rope_theta} or {@code global_attn_every_n_layers}) runs the same maps;
   * a {@code layer_types} that is not every n-th layer global is refused in one line.
   */
  @Test
  void transformers5sLayerTypesAndRopeParametersReadAsTheOlderKeys() throws Exception {
    TinyNeoxModern m = new TinyNeoxModern(modernBert(), 53);
    Path old = m.writeTo(dir.resolve("old"));
    Path v5 = m.writeTo(dir.resolve("v5"));
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    com.fasterxml.jackson.databind.node.ObjectNode c =
        (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(v5.resolve("config.json").toFile());
    c.remove(List.of("global_rope_theta", "local_rope_theta", "global_attn_every_n_layers"));
    c.putArray("layer_types").add("full_attention").add("sliding_attention").add("full_attention")
        .add("sliding_attention");
    c.putObject("rope_parameters").<com.fasterxml.jackson.databind.node.ObjectNode>set("full_attention",
        json.createObjectNode().put("rope_type", "default").put("rope_theta", 40000.0))
        .set("sliding_attention", json.createObjectNode().put("rope_type", "default").put("rope_theta", 500.0));
    java.nio.file.Files.writeString(v5.resolve("config.json"), c.toString());
    ModelRepository repo = new ModelRepository(dir.resolve("cache"));
    try (BertModel a = BertModel.load(repo.folder(old)); BertModel b = BertModel.load(repo.folder(v5))) {
      Encoding e = a.encode(HandModernTokenizer.TEXT, null);
      AttentionTrace ta = a.maps(List.of(e)).get(0);
      AttentionTrace tb = b.maps(List.of(e)).get(0);
      for (int l = 0; l < 4; l++) {
        assertThat(tb.map(new Head(l, 2))).isDeepEqualTo(ta.map(new Head(l, 2)));
      }
    }
    c.putArray("layer_types").add("full_attention").add("sliding_attention").add("full_attention")
        .add("full_attention");
    java.nio.file.Files.writeString(v5.resolve("config.json"), c.toString());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> BertModel.load(repo.folder(v5)))
        .isInstanceOf(io.headscope.model.core.HeadScopeException.class)
        .hasMessageContaining("layer_types").hasMessageNotContaining("\n");
  }

  /**
   * Pythia's checkpoints converted from the old {@code .bin} files carry the attention's buffers: the causal mask
   * {@code attention.bias} (BOOL, max_positions^2), {@code attention.masked_bias} (-1e9) and {@code
   * attention.rotary_emb.inv_freq}. They are skipped (the engine builds its own mask and angles): the folder opens and
   * its maps are those of the same weights without them.
   */
  @Test
  void pythiasAttentionBuffersAreSkipped() {
    TinyNeoxModern plain = new TinyNeoxModern(neox(true), 51);
    TinyNeoxModern old = new TinyNeoxModern(neox(true), 51);
    for (int l = 0; l < 2; l++) {
      String p = "gpt_neox.layers." + l + ".attention.";
      byte[] mask = new byte[64 * 64];
      for (int i = 0; i < 64; i++) {
        for (int j = 0; j <= i; j++) {
          mask[i * 64 + j] = 1;
        }
      }
      old.buffers.add(new io.headscope.model.testing.RawSafetensors.Entry(p + "bias", "BOOL", new long[] {1, 1, 64, 64},
          mask));
      old.buffers.add(new io.headscope.model.testing.RawSafetensors.Entry(p + "masked_bias", "F32", new long[] {},
          java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putFloat(-1e9f).array()));
      old.buffers.add(new io.headscope.model.testing.RawSafetensors.Entry(p + "rotary_emb.inv_freq", "F32",
          new long[] {2}, java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putFloat(1f)
              .putFloat(0.01f).array()));
    }
    ModelRepository repo = new ModelRepository(dir.resolve("cache"));
    try (BertModel a = BertModel.load(repo.folder(plain.writeTo(dir.resolve("plain"))));
        BertModel b = BertModel.load(repo.folder(old.writeTo(dir.resolve("old"))))) {
      Encoding e = a.encode(HandLlamaTokenizer.TEXT, null);
      assertThat(b.maps(List.of(e)).get(0).map(new Head(1, 2))).isDeepEqualTo(a.maps(List.of(e)).get(0).map(new Head(1, 2)));
    }
  }

  /**
   * A ModernBertForSequenceClassification (its own head.dense and head.norm, a classifier.weight) opens for its maps,
   * the masked-LM's, and has no masked-LM head (predict says so in one line), rather than predicting from its pooler.
   */
  @Test
  void aModernBertClassifierOpensForItsMapsWithoutMaskedLmPredictions() {
    TinyNeoxModern lm = new TinyNeoxModern(modernBert(), 53);
    TinyNeoxModern cls = new TinyNeoxModern(modernBert(), 53);
    cls.weights.remove("decoder.bias");
    cls.weights.put("classifier.weight", new TinyDecoder.Tensor(new double[2 * 32], new long[] {2, 32}));
    cls.weights.put("classifier.bias", new TinyDecoder.Tensor(new double[2], new long[] {2}));
    ModelRepository repo = new ModelRepository(dir.resolve("cache"));
    try (BertModel a = BertModel.load(repo.folder(lm.writeTo(dir.resolve("lm"))));
        BertModel b = BertModel.load(repo.folder(cls.writeTo(dir.resolve("cls"))))) {
      Encoding e = a.encode(HandModernTokenizer.TEXT, null);
      assertThat(b.maps(List.of(e)).get(0).map(new Head(1, 1))).isDeepEqualTo(a.maps(List.of(e)).get(0).map(new Head(1, 1)));
      assertThat(a.hasMaskedLmHead()).isTrue();
      assertThat(b.hasMaskedLmHead()).as("what predict and the app ask before predicting").isFalse();
    }
  }

  /**
   * Writes the tiny folders and their reference maps into {@code -Dheadscope.neoxModernDump=DIR} (skipped
   * without it), for running the command line on them and checking the reference against transformers by hand.
   */
  @Test
  void dumpFolders() throws Exception {
    String out = System.getProperty("headscope.neoxModernDump");
    org.junit.jupiter.api.Assumptions.assumeTrue(out != null, "set -Dheadscope.neoxModernDump=DIR to write the dump");
    Object[][] cases = {{"gpt_neox", neox(true), 51L, DecoderFolders.textIds("qwen2")},
        {"modernbert", modernBert(), 53L, HandModernTokenizer.TEXT_IDS}};
    for (Object[] c : cases) {
      TinyNeoxModern m = new TinyNeoxModern((TinyNeoxModern.Spec) c[1], (Long) c[2]);
      Path folder = m.writeTo(Path.of(out).resolve((String) c[0]));
      long[] ids = (long[]) c[3];
      NeoxModernReference.Result ref = m.spec.neox() ? NeoxModernReference.neox(m, ids, ids.length - 1)
          : NeoxModernReference.modernBert(m, ids, indexOf(ids, HandModernTokenizer.MASK));
      java.util.Map<String, Object> dump = new java.util.LinkedHashMap<>();
      dump.put("text", m.spec.neox() ? HandLlamaTokenizer.TEXT : HandModernTokenizer.TEXT);
      dump.put("ids", ids);
      dump.put("attention", ref.attention());
      dump.put("logits", ref.logits());
      new com.fasterxml.jackson.databind.ObjectMapper().writeValue(folder.resolve("reference.json").toFile(), dump);
    }
  }

  private static int indexOf(long[] ids, long id) {
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] == id) {
        return i;
      }
    }
    throw new AssertionError("no id " + id);
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
