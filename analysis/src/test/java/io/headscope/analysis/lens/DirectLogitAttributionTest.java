package io.headscope.analysis.lens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunResult;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectLogitAttributionTest {
  @TempDir Path dir;

  @Test
  void gpt2sComponentsSumToTheLogitDifferenceLessTheFrozenLayerNormsShift() {
    ModelFiles files = FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 13);
    try (BertModel model = BertModel.load(files)) {
      Encoding in = model.encode("the cat sat on the", null);
      long t = model.tokenizer().singleTokenId("ca");
      long c = model.tokenizer().singleTokenId("Ġ");
      long live = model.liveNativeArrays();
      DlaResult result = new DirectLogitAttribution(model).run(in, t, c);
      List<DlaRow> rows = result.rows();
      assertThat(result.method()).isEqualTo(DlaResult.Method.FINAL_SCALE_FROZEN);
      assertThat(model.liveNativeArrays()).as("native arrays left behind").isEqualTo(live);
      int layers = model.config().numHiddenLayers();
      int heads = model.config().numAttentionHeads();
      assertThat(rows).hasSize(1 + layers * (heads + 2));
      double sum = rows.stream().mapToDouble(DlaRow::difference).sum();
      // the logit difference from the model's own forward pass: log p(t) - log p(c)
      int last = in.length() - 1;
      float[] lp = model.run(RunRequest.of(in).read(Readouts.none().withLogProbs(new int[] {last})))
          .logProbs()[0][0];
      double logitDiff = lp[(int) t] - lp[(int) c];
      // the offset the frozen LayerNorm leaves out, (W_U[t] - W_U[c]) . beta, from the checkpoint itself
      double offset = 0;
      try (Safetensors st = Safetensors.open(files.weights())) {
        float[] wte = st.readFloat("transformer.wte.weight").data();
        float[] beta = st.readFloat("transformer.ln_f.bias").data();
        int d = beta.length;
        for (int j = 0; j < d; j++) {
          offset += (wte[(int) t * d + j] - wte[(int) c * d + j]) * (double) beta[j];
        }
      }
      assertThat(sum).isCloseTo(logitDiff - offset, within(1e-4));
    }
  }

  @Test
  void bertsComponentsSumExactlyToTheLogitAndTheLogitDifference() {
    ModelFiles files = TinyBert.create(3, 2, 7).writeTo(dir.resolve("bert"));
    try (BertModel model = BertModel.load(files)) {
      Encoding in = model.encode("the [MASK] sat on the [MASK] .", null);
      float[] own = LogitLensTest.own(model, in);
      long t = argMax(own, 1);
      long c = argMax(own, -1); // the least likely: a difference far from 0, so 1e-4 relative means something
      long live = model.liveNativeArrays();
      DlaResult r = new DirectLogitAttribution(model).run(in, t, c);
      assertThat(model.liveNativeArrays()).as("native arrays left behind").isEqualTo(live);
      assertThat(r.method()).isEqualTo(DlaResult.Method.ALL_SCALES_FROZEN);
      assertThat(r.positions()).containsExactly(2, 6); // after [CLS]
      int layers = model.config().numHiddenLayers();
      int heads = model.config().numAttentionHeads();
      assertThat(r.rows()).hasSize(2 * (1 + layers * (heads + 2) + 1));
      assertThat(r.rows().get(r.rows().size() - 1).component()).isEqualTo("bias");
      float[][] logp = model.run(RunRequest.of(in).read(Readouts.none().withLogProbs(new int[] {2, 6}))).logProbs()[0];
      float[] h = model.run(RunRequest.of(in).capture(Capture.points(HookPoint.Kind.RESID_POST))).cache()
          .get(HookPoint.residPost(layers - 1)).vector(model.config().hiddenSize(), 0, 6);
      for (int i = 0; i < 2; i++) {
        int p = r.positions()[i];
        double diff = logp[i][(int) t] - logp[i][(int) c];
        assertThat(Math.abs(diff)).isGreaterThan(0.5);
        assertThat(r.modelDifference()[i]).isCloseTo(diff, within(1e-5));
        assertThat(r.sum(p, true)).isCloseTo(diff, within(1e-4 * Math.abs(diff)));
      }
      // the target's logit alone (not a difference: no constant cancels) against the head by hand in double
      double logit = HandHead.bertLogits(files.weights(), "bert.", h, model.config().layerNormEps())[(int) t];
      assertThat(r.sum(6, false)).isCloseTo(logit, within(1e-4 * Math.abs(logit)));
    }
  }

  /**
   * Each head's row against that head pushed forwards alone, in plain loops, with every weight read from the
   * checkpoint: its z times its slice of W_O, through each later LayerNorm with the run's sigma (no beta),
   * the head's dense layer (no bias), the run's gelu(z)/z, the head's LayerNorm and the decoder row. The
   * attribution pulls the logit's direction backwards instead, and takes W_O's product from the engine.
   */
  @Test
  void aBertHeadsRowIsItsOutputPushedForwardThroughTheFrozenMaps() {
    ModelFiles files = TinyBert.create(3, 2, 11).writeTo(dir.resolve("bert"));
    try (BertModel model = BertModel.load(files); Safetensors st = Safetensors.open(files.weights())) {
      Encoding in = model.encode("the cat sat on the [MASK] .", null);
      float[] own = LogitLensTest.own(model, in);
      long t = argMax(own, 1);
      long c = argMax(own, -1);
      DlaResult r = new DirectLogitAttribution(model).run(in, t, c);
      int p = 6;
      assertThat(r.positions()).containsExactly(p);
      int layers = model.config().numHiddenLayers();
      int heads = model.config().numAttentionHeads();
      int d = model.config().hiddenSize();
      int dh = d / heads;
      double eps = model.config().layerNormEps();
      RunResult run = model.run(RunRequest.of(in).capture(Capture.points(HookPoint.Kind.ATTN_Z,
          HookPoint.Kind.RESID_PRE, HookPoint.Kind.ATTN_OUT, HookPoint.Kind.RESID_MID, HookPoint.Kind.MLP_OUT,
          HookPoint.Kind.RESID_POST)));
      double[] sigma1 = new double[layers];
      double[] sigma2 = new double[layers];
      for (int l = 0; l < layers; l++) {
        sigma1[l] = sigma(sum(vec(run, HookPoint.residPre(l), d, p), vec(run, HookPoint.of(HookPoint.Kind.ATTN_OUT, l), d, p)), eps);
        sigma2[l] = sigma(sum(vec(run, HookPoint.of(HookPoint.Kind.RESID_MID, l), d, p),
            vec(run, HookPoint.of(HookPoint.Kind.MLP_OUT, l), d, p)), eps);
      }
      float[] wd = st.readFloat("cls.predictions.transform.dense.weight").data();
      float[] bd = st.readFloat("cls.predictions.transform.dense.bias").data();
      float[] g3 = st.readFloat("cls.predictions.transform.LayerNorm.weight").data();
      float[] emb = st.readFloat("bert.embeddings.word_embeddings.weight").data();
      // the head's frozen GELU ratio and LayerNorm scale, from the run's final stream by hand
      float[] hFinal = vec(run, HookPoint.residPost(layers - 1), d, p);
      double[] tRun = new double[d];
      double[] gRun = new double[d];
      for (int i = 0; i < d; i++) {
        tRun[i] = bd[i];
        for (int j = 0; j < d; j++) {
          tRun[i] += (double) wd[i * d + j] * hFinal[j];
        }
        gRun[i] = 0.5 * tRun[i] * (1 + HandHead.erf(tRun[i] / Math.sqrt(2)));
      }
      double sigma3 = sigma(gRun, eps);
      int checked = 0;
      for (int l = 0; l < layers; l++) {
        float[] wo = st.readFloat("bert.encoder.layer." + l + ".attention.output.dense.weight").data(); // (out, in)
        Activation z = run.cache().get(HookPoint.of(HookPoint.Kind.ATTN_Z, l)); // (1, H, T, dh)
        for (int hh = 0; hh < heads; hh++) {
          double[] x = new double[d];
          for (int i = 0; i < d; i++) {
            for (int k = 0; k < dh; k++) {
              x[i] += (double) wo[i * d + hh * dh + k] * z.get(0, hh, p, k);
            }
          }
          for (int m = l; m < layers; m++) {
            x = frozenLayerNorm(x, st.readFloat("bert.encoder.layer." + m + ".attention.output.LayerNorm.weight").data(),
                sigma1[m]);
            x = frozenLayerNorm(x, st.readFloat("bert.encoder.layer." + m + ".output.LayerNorm.weight").data(),
                sigma2[m]);
          }
          double[] g = new double[d];
          for (int i = 0; i < d; i++) {
            double ti = 0;
            for (int j = 0; j < d; j++) {
              ti += (double) wd[i * d + j] * x[j];
            }
            g[i] = tRun[i] == 0 ? 0 : ti * gRun[i] / tRun[i];
          }
          double[] u = frozenLayerNorm(g, g3, sigma3);
          double toT = 0;
          double toC = 0;
          for (int i = 0; i < d; i++) {
            toT += emb[(int) t * d + i] * u[i];
            toC += emb[(int) c * d + i] * u[i];
          }
          DlaRow row = row(r, l + 1, hh + 1);
          assertThat(row.target()).as("head %d-%d", l + 1, hh + 1).isCloseTo(toT, within(1e-5 * Math.max(1, Math.abs(toT))));
          assertThat(row.contrast()).isCloseTo(toC, within(1e-5 * Math.max(1, Math.abs(toC))));
          assertThat(Math.abs(toT)).isGreaterThan(1e-4); // not trivially zero
          checked++;
        }
      }
      assertThat(checked).isEqualTo(layers * heads);
    }
  }

  /**
   * Every post-LayerNorm family the engine loads: what enters layer 1 (ALBERT's and ELECTRA's projected
   * embeddings), DistilBERT's names, ALBERT's shared layers and the families' head activations all end in
   * rows that sum to the model's own logit difference.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"roberta", "xlm-roberta", "distilbert", "electra", "albert"})
  void everyPostLayerNormFamilysRowsSumToItsLogitDifference(String family) {
    ModelFiles files = FamilyModelFolders.write(family, dir.resolve(family), 17);
    try (BertModel model = BertModel.load(files)) {
      String mask = model.tokenizer().vocabToken(model.tokenizer().maskId()).strip();
      Encoding in = model.encode("the cat sat on the " + mask + " .", null);
      float[] own = LogitLensTest.own(model, in);
      long t = argMax(own, 1);
      long c = argMax(own, -1);
      DlaResult r = new DirectLogitAttribution(model).run(in, t, c);
      assertThat(r.method()).isEqualTo(DlaResult.Method.ALL_SCALES_FROZEN);
      int p = r.positions()[0];
      float[] logp = model.run(RunRequest.of(in).read(Readouts.none().withLogProbs(new int[] {p}))).logProbs()[0][0];
      double diff = logp[(int) t] - logp[(int) c];
      assertThat(Math.abs(diff)).isGreaterThan(0.1);
      assertThat(r.sum(p, true)).as(family).isCloseTo(diff, within(1e-4 * Math.abs(diff)));
    }
  }

  @Test
  void aModelWithoutAMaskedLmHeadIsRefusedInOneLine() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 2, 1).withoutMlmHead().writeTo(dir.resolve("bare")))) {
      Encoding in = model.encode("the [MASK] sat", null);
      assertThatThrownBy(() -> new DirectLogitAttribution(model).run(in, 5, 6))
          .isInstanceOf(HeadScopeException.class).hasMessageNotContaining("\n");
    }
  }

  /** Head {@code layer-head}'s row (1-based), for the decoders' test too. */
  static DlaRow row(DlaResult r, int layer, int head) {
    return r.rows().stream().filter(x -> x.component().equals("head") && x.layer() == layer && x.head() == head)
        .findFirst().orElseThrow();
  }

  /**
   * ModernBERT (pre-norm, final_norm then a masked-LM head of dense, GELU, norm and the tied decoder): with the final
   * norm's scale frozen at the full stream's (as GPT-2's ln_f) and the head's GELU ratio and norm scale frozen (as
   * BERT's), the rows sum to the model's own logit difference; the attention has no biases, so every
   * {@code attn_bias} row is the rounding between the heads' results and the layer's output, far below a head's.
   */
  @Test
  void modernBertsRowsSumToItsLogitDifferenceWithEveryScaleFrozen() {
    Path folder = io.headscope.model.decoders.DecoderFolders.writeNeoxModern("modernbert", dir.resolve("modernbert"), 53);
    try (BertModel model = BertModel.load(new io.headscope.model.repository.ModelRepository(dir.resolve("cache"))
        .folder(folder))) {
      Encoding in = model.encode(io.headscope.model.decoders.DecoderFolders.neoxModernText("modernbert"), null);
      assertThat(in.ids()).containsExactly(io.headscope.model.decoders.DecoderFolders.neoxModernIds("modernbert"));
      float[] own = LogitLensTest.own(model, in);
      long t = argMax(own, 1);
      long c = argMax(own, -1);
      long live = model.liveNativeArrays();
      DlaResult r = new DirectLogitAttribution(model).run(in, t, c);
      assertThat(model.liveNativeArrays()).as("native arrays left behind").isEqualTo(live);
      assertThat(r.method()).isEqualTo(DlaResult.Method.ALL_SCALES_FROZEN);
      int layers = model.config().numHiddenLayers();
      int heads = model.config().numAttentionHeads();
      assertThat(r.rows()).hasSize(1 + layers * (heads + 2) + 1);
      int p = r.positions()[0];
      float[] logp = model.run(RunRequest.of(in).read(Readouts.none().withLogProbs(new int[] {p}))).logProbs()[0][0];
      double diff = logp[(int) t] - logp[(int) c];
      assertThat(Math.abs(diff)).isGreaterThan(0.1);
      // the bound the post-LayerNorm families are held to (everyPostLayerNormFamilysRowsSumToItsLogitDifference)
      assertThat(r.sum(p, true)).isCloseTo(diff, within(1e-4 * Math.abs(diff)));
      double largestHead = r.rows().stream().filter(x -> x.component().equals("head"))
          .mapToDouble(x -> Math.abs(x.difference())).max().orElseThrow();
      assertThat(largestHead).isGreaterThan(1e-3);
      for (DlaRow row : r.rows()) {
        if (row.component().equals("attn_bias")) {
          assertThat(Math.abs(row.difference())).as("layer %d's attention bias (none)", row.layer())
              .isLessThan(1e-3 * largestHead);
        }
      }
    }
  }

  /**
   * ModernBERT: each head's row against that head pushed forwards alone in plain loops, with every weight read from
   * the checkpoint's bf16 bytes: its {@code attn.hook_result} through {@code final_norm} with the full stream's
   * sigma (no beta: ModernBERT's norms have none), {@code head.dense}, the run's GELU ratio (erf GELU by hand at
   * the run's pre-activation, itself computed by hand from the stream), {@code head.norm} with the run's sigma and
   * the tied decoder rows. The attribution pulls the direction backwards instead, with the engine's GELU.
   */
  @Test
  void aModernBertHeadsRowIsItsResultPushedForwardThroughTheFrozenNormsAndHead() throws Exception {
    Path folder = io.headscope.model.decoders.DecoderFolders.writeNeoxModern("modernbert", dir.resolve("modernbert"), 57);
    java.util.Map<String, float[]> w = bf16(folder.resolve("model.safetensors"));
    try (BertModel model = BertModel.load(new io.headscope.model.repository.ModelRepository(dir.resolve("cache"))
        .folder(folder))) {
      Encoding in = model.encode(io.headscope.model.decoders.DecoderFolders.neoxModernText("modernbert"), null);
      float[] own = LogitLensTest.own(model, in);
      long t = argMax(own, 1);
      long c = argMax(own, -1);
      DlaResult r = new DirectLogitAttribution(model).run(in, t, c);
      int p = r.positions()[0];
      int layers = model.config().numHiddenLayers();
      int heads = model.config().numAttentionHeads();
      int d = model.config().hiddenSize();
      double eps = model.config().layerNormEps();
      RunResult run = model.run(RunRequest.of(in).capture(Capture.points(HookPoint.Kind.ATTN_RESULT,
          HookPoint.Kind.RESID_POST)));
      float[] stream = vec(run, HookPoint.residPost(layers - 1), d, p);
      double sigmaF = sigma(stream, eps);
      float[] gf = w.get("model.final_norm.weight");
      float[] wd = w.get("head.dense.weight"); // (out, in)
      float[] gh = w.get("head.norm.weight");
      float[] emb = w.get("model.embeddings.tok_embeddings.weight");
      double[] hRun = frozenLayerNorm(toDouble(stream), gf, sigmaF);
      double[] tRun = new double[d];
      double[] gRun = new double[d];
      for (int i = 0; i < d; i++) {
        for (int j = 0; j < d; j++) {
          tRun[i] += (double) wd[i * d + j] * hRun[j];
        }
        gRun[i] = 0.5 * tRun[i] * (1 + HandHead.erf(tRun[i] / Math.sqrt(2)));
      }
      double sigmaH = sigma(gRun, eps);
      for (int l = 0; l < layers; l++) {
        Activation result = run.cache().get(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l)); // (1, T, H, d)
        for (int hh = 0; hh < heads; hh++) {
          double[] y = frozenLayerNorm(toDouble(result.vector(d, 0, p, hh)), gf, sigmaF);
          double[] g = new double[d];
          for (int i = 0; i < d; i++) {
            double ti = 0;
            for (int j = 0; j < d; j++) {
              ti += (double) wd[i * d + j] * y[j];
            }
            g[i] = tRun[i] == 0 ? 0 : ti * gRun[i] / tRun[i];
          }
          double[] u = frozenLayerNorm(g, gh, sigmaH);
          double toT = 0;
          double toC = 0;
          for (int i = 0; i < d; i++) {
            toT += emb[(int) t * d + i] * u[i];
            toC += emb[(int) c * d + i] * u[i];
          }
          DlaRow row = row(r, l + 1, hh + 1);
          assertThat(row.target()).as("head %d-%d", l + 1, hh + 1).isCloseTo(toT, within(1e-5 * Math.max(1, Math.abs(toT))));
          assertThat(row.contrast()).isCloseTo(toC, within(1e-5 * Math.max(1, Math.abs(toC))));
          assertThat(Math.abs(toT)).isGreaterThan(1e-4); // not trivially zero
        }
      }
    }
  }

  private static double[] toDouble(float[] x) {
    double[] out = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = x[i];
    }
    return out;
  }

  /** Every BF16 tensor of a safetensors file, widened by hand (a bf16 is a float32's upper 16 bits). */
  private static java.util.Map<String, float[]> bf16(Path file) throws Exception {
    byte[] all = java.nio.file.Files.readAllBytes(file);
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(all).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    int n = (int) b.getLong(0);
    com.fasterxml.jackson.databind.JsonNode header = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(new String(all, 8, n, java.nio.charset.StandardCharsets.UTF_8));
    java.util.Map<String, float[]> out = new java.util.HashMap<>();
    for (var it = header.fields(); it.hasNext(); ) {
      var e = it.next();
      if (!e.getValue().path("dtype").asText().equals("BF16")) {
        continue;
      }
      long begin = 8 + n + e.getValue().get("data_offsets").get(0).asLong();
      long end = 8 + n + e.getValue().get("data_offsets").get(1).asLong();
      float[] v = new float[(int) ((end - begin) / 2)];
      for (int i = 0; i < v.length; i++) {
        v[i] = Float.intBitsToFloat((b.getShort((int) begin + 2 * i) & 0xFFFF) << 16);
      }
      out.put(e.getKey(), v);
    }
    return out;
  }

  /** The id of the largest ({@code sign} 1) or smallest (-1) entry. */
  /** The most (sign 1) or least (-1) likely token. */
  static long argMax(float[] p, int sign) {
    int best = 0;
    for (int i = 1; i < p.length; i++) {
      if (sign * p[i] > sign * p[best]) {
        best = i;
      }
    }
    return best;
  }

  private static float[] vec(RunResult r, HookPoint p, int d, int pos) {
    return r.cache().get(p).vector(d, 0, pos);
  }

  private static float[] sum(float[] x, float[] y) {
    float[] out = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = x[i] + y[i];
    }
    return out;
  }

  private static double sigma(float[] x, double eps) {
    double[] d = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      d[i] = x[i];
    }
    return sigma(d, eps);
  }

  private static double sigma(double[] x, double eps) {
    double mean = 0;
    for (double v : x) {
      mean += v / x.length;
    }
    double var = 0;
    for (double v : x) {
      var += (v - mean) * (v - mean) / x.length;
    }
    return Math.sqrt(var + eps);
  }

  /** {@code gamma (x - mean x) / sigma}: a LayerNorm with its scale frozen, without its beta. */
  private static double[] frozenLayerNorm(double[] x, float[] gamma, double sigma) {
    double mean = 0;
    for (double v : x) {
      mean += v / x.length;
    }
    double[] out = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = gamma[i] * (x[i] - mean) / sigma;
    }
    return out;
  }
}
