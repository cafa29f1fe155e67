package io.headscope.analysis.lens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.decoders.DecoderFolders;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Direct logit attribution on today's decoders: the four RMSNorm families (Llama, Qwen2, Mistral, Gemma: the final
 * RMSNorm's scale frozen at the full stream's, nothing centred, no shift) and GPT-NeoX (its final LayerNorm, as
 * GPT-2's, with a parallel residual), on the tiny checkpoints of the family tests.
 *
 * <p>Two checks, each against something the attribution does not compute itself. The rows' sum against the model's
 * own log-probabilities, within the float32 error bound derived in {@link #bound}: in exact arithmetic the rows sum
 * to the logit difference (less {@code (W_U[t] - W_U[c]) . beta} for a LayerNorm), so anything past the rounding
 * would be a wrong decomposition. And every head's row against its {@code attn.hook_result} pushed forwards by hand
 * through the final norm's frozen scale and the decoder rows, with the gain and rows taken from the values the test
 * checkpoint writes (Gemma's gain as {@code 1 + w}), not from the engine.
 */
class DecoderDirectLogitAttributionTest {
  private static final double U = 0x1p-24; // float32's unit roundoff

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"llama", "qwen2", "mistral", "gemma", "gpt_neox"})
  void rowsSumToTheModelsLogitDifferenceAndEachHeadIsItsResultThroughTheFrozenNorm(String type) {
    long seed = 61;
    boolean neox = type.equals("gpt_neox");
    Path folder = neox ? DecoderFolders.writeNeoxModern(type, dir.resolve(type), seed)
        : DecoderFolders.write(type, dir.resolve(type), seed);
    try (BertModel model = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      Encoding in = model.encode(DecoderFolders.TEXT, null);
      int d = model.config().hiddenSize();
      int layers = model.config().numHiddenLayers();
      int heads = model.config().numAttentionHeads();
      float[] own = LogitLensTest.own(model, in);
      long t = DirectLogitAttributionTest.argMax(own, 1);
      long c = DirectLogitAttributionTest.argMax(own, -1);
      long live = model.liveNativeArrays();
      DlaResult r = new DirectLogitAttribution(model).run(in, t, c);
      assertThat(model.liveNativeArrays()).as("native arrays left behind").isEqualTo(live);
      assertThat(r.method()).isEqualTo(neox ? DlaResult.Method.FINAL_SCALE_FROZEN
          : DlaResult.Method.FINAL_RMS_SCALE_FROZEN);
      assertThat(r.rows()).hasSize(1 + layers * (heads + 2));
      int p = in.length() - 1;
      assertThat(r.positions()).containsExactly(p);

      // the final norm and the decoder rows as the checkpoint stores them
      double[] gain = DecoderFolders.weight(type, seed, neox ? "gpt_neox.final_layer_norm.weight" : "model.norm.weight");
      if (type.equals("gemma")) {
        for (int j = 0; j < d; j++) {
          gain[j] += 1; // GemmaRMSNorm scales by 1 + w
        }
      }
      double[] beta = neox ? DecoderFolders.weight(type, seed, "gpt_neox.final_layer_norm.bias") : new double[d];
      double[] unembed = neox ? DecoderFolders.weight(type, seed, "embed_out.weight")
          : DecoderFolders.weight(type, seed, "lm_head.weight");
      if (unembed == null) { // tied: the input embeddings
        unembed = DecoderFolders.weight(type, seed, "model.embed_tokens.weight");
      }
      double[] wt = java.util.Arrays.copyOfRange(unembed, (int) t * d, (int) t * d + d);
      double[] wc = java.util.Arrays.copyOfRange(unembed, (int) c * d, (int) c * d + d);

      RunResult run = model.run(RunRequest.of(in)
          .capture(Capture.points(HookPoint.Kind.RESID_PRE, HookPoint.Kind.ATTN_OUT, HookPoint.Kind.MLP_OUT,
              HookPoint.Kind.RESID_POST, HookPoint.Kind.ATTN_RESULT))
          .read(Readouts.none().withLogProbs(new int[] {p})));
      float[] logp = run.logProbs()[0][0];
      double diff = logp[(int) t] - logp[(int) c];
      assertThat(Math.abs(diff)).as("a difference far from 0").isGreaterThan(0.1);
      float[] stream = run.cache().get(HookPoint.residPost(layers - 1)).vector(d, 0, p);
      double mean = 0;
      for (float x : stream) {
        mean += neox ? x / (double) d : 0;
      }
      double sigma2 = 0;
      for (float x : stream) {
        sigma2 += (x - mean) * (x - mean) / d;
      }
      double sigma = Math.sqrt(sigma2 + model.config().layerNormEps());

      // the sum: the logit difference, less the shift a LayerNorm's frozen form leaves out
      double offset = 0;
      for (int j = 0; j < d; j++) {
        offset += (wt[j] - wc[j]) * beta[j];
      }
      double b = bound(run, p, d, layers, stream, mean, sigma, gain, wt, wc, logp[(int) t], logp[(int) c], neox);
      assertThat(b).as("the bound is far below the difference it checks").isLessThan(1e-3 * Math.abs(diff));
      assertThat(r.sum(p, true)).as(type).isCloseTo(diff - offset, within(b));

      // each head: its result through the frozen norm (centred for a LayerNorm) and the two decoder rows
      double largest = 0;
      for (int l = 0; l < layers; l++) {
        Activation result = run.cache().get(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l));
        for (int h = 0; h < heads; h++) {
          float[] z = result.vector(d, 0, p, h);
          double zm = 0;
          for (float x : z) {
            zm += neox ? x / (double) d : 0;
          }
          double byHand = 0;
          for (int j = 0; j < d; j++) {
            byHand += (wt[j] - wc[j]) * gain[j] * (z[j] - zm) / sigma;
          }
          DlaRow row = DirectLogitAttributionTest.row(r, l + 1, h + 1);
          // the same double arithmetic from the same float32 vector, summed in another order
          assertThat(row.difference()).as("%s head %d-%d", type, l + 1, h + 1)
              .isCloseTo(byHand, within(1e-12 * (1 + Math.abs(byHand))));
          largest = Math.max(largest, Math.abs(byHand));
        }
      }
      assertThat(largest).as("a head that contributes").isGreaterThan(1e-3);
    }
  }

  /**
   * A first-order worst-case bound on |(the model's float32 log p(t) - log p(c)) - (the exact sum of its
   * components through the frozen norm)|, from the standard model of rounding ({@code fl(a op b) = (a op b)(1 + e)},
   * {@code |e| <= u}; Higham, Accuracy and Stability of Numerical Algorithms, ch. 3):
   * <ul>
   *   <li>the stream: the components are the engine's own float32 values, exact as given, but the stream the head
   *   reads is their float32 sum, two roundings per layer of partial sums bounded elementwise by
   *   {@code |resid_pre| + |attn_out| + |mlp_out|} (in whatever order the layer adds them, parallel or serial):
   *   {@code e_j <= 2u sum_l (...)}, carried to the difference by the frozen map, {@code sum_j |(w_t - w_c)_j g_j| e_j / sigma};
   *   <li>the norm's scale: a sum of d squares (all positive: relative error {@code d u}), the division, the eps,
   *   the root (half the relative error) and its reciprocal: {@code (d/2 + 5) u} relative on {@code 1/sigma}, and
   *   two products per element, each row of the head moved by {@code (d/2 + 7) u A_v}, {@code A_v = sum_j |w_v,j
   *   g_j x_j| / sigma} with x the normed input (centred for a LayerNorm, whose mean adds {@code d u mean|r|} per
   *   element);
   *   <li>the decoder's dot products of length d: {@code gamma_d A_v};
   *   <li>log-softmax {@code z_i - m - log(sum)}: the log of the sum is one value for both tokens and cancels; the two
   *   subtractions round by {@code u |z_i - m| + u |log p_i| <= 2u |log p_i|}.
   * </ul>
   */
  private static double bound(RunResult run, int p, int d, int layers, float[] stream, double mean, double sigma,
      double[] gain, double[] wt, double[] wc, double logpT, double logpC, boolean layerNorm) {
    double[] e = new double[d];
    for (int l = 0; l < layers; l++) {
      float[] pre = run.cache().get(HookPoint.residPre(l)).vector(d, 0, p);
      float[] attn = run.cache().get(HookPoint.of(HookPoint.Kind.ATTN_OUT, l)).vector(d, 0, p);
      float[] mlp = run.cache().get(HookPoint.of(HookPoint.Kind.MLP_OUT, l)).vector(d, 0, p);
      for (int j = 0; j < d; j++) {
        e[j] += 2 * U * (Math.abs(pre[j]) + Math.abs(attn[j]) + Math.abs(mlp[j]));
      }
    }
    double meanAbs = 0;
    for (float x : stream) {
      meanAbs += Math.abs(x) / d;
    }
    double carried = 0;
    double at = 0;
    double ac = 0;
    double centring = 0;
    for (int j = 0; j < d; j++) {
      carried += Math.abs((wt[j] - wc[j]) * gain[j]) * e[j] / sigma;
      at += Math.abs(wt[j] * gain[j] * (stream[j] - mean)) / sigma;
      ac += Math.abs(wc[j] * gain[j] * (stream[j] - mean)) / sigma;
      centring += layerNorm ? (Math.abs(wt[j] * gain[j]) + Math.abs(wc[j] * gain[j])) * d * U * meanAbs / sigma : 0;
    }
    double gammaD = d * U / (1 - d * U);
    return carried + ((d / 2.0 + 7) * U + gammaD) * (at + ac) + centring
        + 2 * U * (Math.abs(logpT) + Math.abs(logpC));
  }
}
