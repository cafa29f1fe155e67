package io.headscope.analysis.lens;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.engine.UnembedWeights;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;

/**
 * Direct logit attribution (TransformerLens's {@code cache.decompose_resid} and
 * {@code apply_ln_to_stack(..., pos_slice)} with {@code logit_lens}): in a pre-LayerNorm model the
 * stream the head reads is a sum, {@code r = embed + sum_l (sum_h result_{l,h} + b_O,l + mlp_out_l)}, and
 * with the final LayerNorm's scale {@code sigma(r)} frozen at its value on the full stream the head is
 * linear: component {@code c} gives {@code W_U[v] . (gamma * (c - mean(c)) / sigma(r))} to token v's logit.
 * The components sum to the logit minus the offsets the freezing leaves out, {@code W_U[v] . beta} (and
 * the decoder bias, none in GPT-2).
 *
 * <p>A post-LayerNorm model (BERT and the other encoders) has no such sum: each layer's output is
 * LayerNorm(resid + sublayer), so a head's output reaches the top through every later LayerNorm and
 * sublayer, and the masked-LM head puts a GELU before its LayerNorm; it is refused in one line.
 */
public final class DirectLogitAttribution {
  private final BertModel model;

  public DirectLogitAttribution(BertModel model) {
    this.model = model;
  }

  /** Every component's direct logit for {@code target} (and {@code contrast}, or -1) at the read positions. */
  public List<DlaRow> run(Encoding input, long target, long contrast) {
    UnembedWeights u = model.unembedWeights(contrast < 0 ? new long[] {target} : new long[] {target, contrast});
    if (u == null) {
      throw new HeadScopeException("Direct logit attribution needs a pre-LayerNorm model such as GPT-2: in "
          + model.name() + " each layer's LayerNorm and the head's GELU lie between a head and the logits, "
          + "so no head adds to them linearly (the logit lens works).");
    }
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int d = model.config().hiddenSize();
    RunResult r = model.run(RunRequest.of(input).capture(Capture.points(HookPoint.Kind.EMBED,
        HookPoint.Kind.ATTN_RESULT, HookPoint.Kind.ATTN_OUT, HookPoint.Kind.MLP_OUT, HookPoint.Kind.RESID_POST)));
    List<DlaRow> rows = new ArrayList<>();
    for (int p : ReadPositions.of(model, input)) {
      float[] stream = r.cache().get(HookPoint.residPost(layers - 1)).vector(d, 0, p);
      double sigma = Math.sqrt(variance(stream) + u.eps()); // frozen: the full stream's
      rows.add(row("embed", 0, 0, p, r.cache().get(HookPoint.embed()).vector(d, 0, p), sigma, u, contrast));
      for (int l = 0; l < layers; l++) {
        Activation result = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l)); // (1, T, H, d)
        double[] bias = toDouble(r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_OUT, l)).vector(d, 0, p));
        for (int h = 0; h < heads; h++) {
          float[] z = result.vector(d, 0, p, h);
          rows.add(row("head", l + 1, h + 1, p, z, sigma, u, contrast));
          for (int j = 0; j < d; j++) {
            bias[j] -= z[j]; // attn_out - sum_h result = b_O
          }
        }
        rows.add(row("attn_bias", l + 1, 0, p, toFloat(bias), sigma, u, contrast));
        rows.add(row("mlp", l + 1, 0, p, r.cache().get(HookPoint.of(HookPoint.Kind.MLP_OUT, l)).vector(d, 0, p),
            sigma, u, contrast));
      }
    }
    return rows;
  }

  private static DlaRow row(String kind, int layer, int head, int p, float[] c, double sigma, UnembedWeights u,
      long contrast) {
    return new DlaRow(kind, layer, head, p, direct(c, sigma, u, 0),
        contrast < 0 ? Double.NaN : direct(c, sigma, u, 1));
  }

  /** {@code W_U[token] . (gamma * (c - mean(c)) / sigma)}. */
  private static double direct(float[] c, double sigma, UnembedWeights u, int token) {
    double mean = 0;
    for (float x : c) {
      mean += x / (double) c.length;
    }
    double s = 0;
    for (int j = 0; j < c.length; j++) {
      s += u.rows()[token][j] * (double) u.lnWeight()[j] * (c[j] - mean);
    }
    return s / sigma;
  }

  private static double variance(float[] x) {
    double mean = 0;
    for (float v : x) {
      mean += v / (double) x.length;
    }
    double var = 0;
    for (float v : x) {
      var += (v - mean) * (v - mean) / x.length;
    }
    return var;
  }

  private static double[] toDouble(float[] x) {
    double[] out = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = x[i];
    }
    return out;
  }

  private static float[] toFloat(double[] x) {
    float[] out = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = (float) x[i];
    }
    return out;
  }
}
