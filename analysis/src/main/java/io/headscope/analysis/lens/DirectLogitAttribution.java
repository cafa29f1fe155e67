package io.headscope.analysis.lens;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.PostLayerNormWeights;
import io.headscope.model.engine.PreNormMaskedLmWeights;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.engine.UnembedWeights;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;

/**
 * Direct logit attribution (TransformerLens's {@code cache.decompose_resid} and
 * {@code apply_ln_to_stack(..., pos_slice)} with {@code logit_lens}), in the two forms the two kinds of
 * model allow.
 *
 * <p>Pre-LayerNorm (GPT-2, GPT-NeoX) and pre-RMSNorm (Llama, Qwen2, Mistral, Gemma): the stream the head reads
 * is a sum,
 * {@code r = embed + sum_l (sum_h result_{l,h} + b_O,l + mlp_out_l)}, and with the final LayerNorm's
 * scale {@code sigma(r)} frozen at its value on the full stream the head is linear: component {@code c}
 * gives {@code W_U[v] . (gamma * (c - mean(c)) / sigma(r))} to token v's logit. The components sum to
 * the logit minus the offsets the freezing leaves out, {@code W_U[v] . beta} (and the decoder bias, none
 * in GPT-2). An RMSNorm's scale {@code sqrt(mean(r^2) + eps)} is frozen the same way; it centres nothing and has
 * no shift, so there the components sum to the logit itself.
 *
 * <p>Post-LayerNorm (BERT and the other encoders): each layer's output is
 * {@code LN2(LN1(resid_pre + attn_out) + mlp_out)} and the masked-LM head is
 * {@code E . LN3(gelu(W h + b)) + bias}. Nothing there is a sum until every nonlinearity on the residual
 * path is frozen at its value on this run: each LayerNorm's {@code 1/sigma} (per position) and the head's
 * GELU as the elementwise ratio {@code gelu(z)/z} (0 where z is 0). Then each LayerNorm is affine,
 * {@code LN(sum c_i) = sum gamma (c_i - mean c_i) / sigma + beta}, the head is affine, and the logit at
 * the read position splits exactly into the embeddings, each head's {@code z^h W_O^h}, each attention
 * output bias, each MLP output, and one {@code bias} row that holds every LayerNorm's beta, the head's
 * dense bias and beta and the decoder bias, as they reach the logit. What a component changes through
 * later attention and MLPs is not in it (those are the later components). It is an attribution under a
 * linearisation, not the effect of removing the component.
 *
 * <p>Computed backwards: the logit's direction is pulled back through the frozen maps once per read
 * position ({@code a <- center(gamma * a) / sigma} at each LayerNorm), then every component is one dot
 * product with the direction at its layer. The test pushes one head's vector forwards instead.
 */
public final class DirectLogitAttribution {
  private final BertModel model;

  public DirectLogitAttribution(BertModel model) {
    this.model = model;
  }

  /** Every component's direct logit for {@code target} (and {@code contrast}, or -1) at the read positions. */
  public DlaResult run(Encoding input, long target, long contrast) {
    long[] tokens = contrast < 0 ? new long[] {target} : new long[] {target, contrast};
    int[] positions = ReadPositions.of(model, input);
    UnembedWeights u = model.unembedWeights(tokens);
    PostLayerNormWeights post = u == null ? model.postLayerNormWeights(tokens) : null;
    PreNormMaskedLmWeights modern = u == null && post == null ? model.preNormMaskedLmWeights(tokens) : null;
    if (u == null && post == null && modern == null) {
      throw new HeadScopeException("Direct logit attribution needs a decoder's final norm and head or a masked-LM "
          + "head with its transform; " + model.name() + " has neither.");
    }
    RunResult r = model.run(RunRequest.of(input)
        .capture(Capture.points(HookPoint.Kind.EMBED, HookPoint.Kind.RESID_PRE, HookPoint.Kind.ATTN_RESULT,
            HookPoint.Kind.ATTN_OUT, HookPoint.Kind.RESID_MID, HookPoint.Kind.MLP_OUT, HookPoint.Kind.RESID_POST))
        .read(Readouts.none().withMaskedLm(ReadPositions.readoutId(model))));
    double[] own = new double[positions.length];
    List<RunResult.MaskDistribution> dists = r.maskedLm().get(0);
    for (int i = 0; i < positions.length; i++) {
      float[] p = dists.get(i).probabilities();
      own[i] = contrast < 0 ? Double.NaN : Math.log(p[(int) target]) - Math.log(p[(int) contrast]);
    }
    List<DlaRow> rows = new ArrayList<>();
    for (int p : positions) {
      rows.addAll(u != null ? preLayerNorm(r, p, u, contrast)
          : post != null ? postLayerNorm(r, p, post, contrast) : preNormMaskedLm(r, p, modern));
    }
    return new DlaResult(input.tokens(), target, contrast,
        u == null ? DlaResult.Method.ALL_SCALES_FROZEN
            : u.rms() ? DlaResult.Method.FINAL_RMS_SCALE_FROZEN : DlaResult.Method.FINAL_SCALE_FROZEN,
        rows, positions, own);
  }

  private List<DlaRow> preLayerNorm(RunResult r, int p, UnembedWeights u, long contrast) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int d = model.config().hiddenSize();
    List<DlaRow> rows = new ArrayList<>();
    float[] stream = r.cache().get(HookPoint.residPost(layers - 1)).vector(d, 0, p);
    // frozen: the full stream's; an RMSNorm's is its root mean square, nothing subtracted
    double sigma = Math.sqrt((u.rms() ? meanSquare(stream) : variance(stream)) + u.eps());
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
    return rows;
  }

  /**
   * The post-LayerNorm decomposition at read position {@code p}: the direction of each asked token's logit
   * pulled back through the frozen head and LayerNorms, layer by layer from the top, and each component
   * dotted with it where it enters the stream.
   */
  private List<DlaRow> postLayerNorm(RunResult r, int p, PostLayerNormWeights w, long contrast) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int d = model.config().hiddenSize();
    int k = w.rows().length; // 1 or 2 tokens
    float[] h = r.cache().get(HookPoint.residPost(layers - 1)).vector(d, 0, p);
    Pulled head = throughHead(h, w);
    double[][] a = head.a();
    double[] constant = head.constant();
    // [layer][slot][token]: slots 0..H-1 the heads, H the attention bias, H+1 the MLP
    double[][][] parts = new double[layers][heads + 2][k];
    for (int l = layers - 1; l >= 0; l--) {
      float[] mid = r.cache().get(HookPoint.of(HookPoint.Kind.RESID_MID, l)).vector(d, 0, p);
      float[] mlp = r.cache().get(HookPoint.of(HookPoint.Kind.MLP_OUT, l)).vector(d, 0, p);
      float[] pre = r.cache().get(HookPoint.residPre(l)).vector(d, 0, p);
      float[] attn = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_OUT, l)).vector(d, 0, p);
      double sigma2 = Math.sqrt(variance(add(mid, mlp)) + w.eps());
      double sigma1 = Math.sqrt(variance(add(pre, attn)) + w.eps());
      Activation result = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l)); // (1, T, H, d)
      float[][] byHead = new float[heads][];
      double[] bias = toDouble(attn);
      for (int hh = 0; hh < heads; hh++) {
        byHead[hh] = result.vector(d, 0, p, hh);
        for (int j = 0; j < d; j++) {
          bias[j] -= byHead[hh][j]; // attn_out - sum_h result = b_O
        }
      }
      for (int v = 0; v < k; v++) {
        constant[v] += dot(w.ln2Bias()[l], a[v]);
        a[v] = pullBack(a[v], w.ln2Weight()[l], sigma2); // now on resid_mid + mlp_out
        parts[l][heads + 1][v] = dot(mlp, a[v]);
        constant[v] += dot(w.ln1Bias()[l], a[v]);
        a[v] = pullBack(a[v], w.ln1Weight()[l], sigma1); // now on resid_pre + attn_out
        for (int hh = 0; hh < heads; hh++) {
          parts[l][hh][v] = dot(byHead[hh], a[v]);
        }
        parts[l][heads][v] = dot(bias, a[v]);
      }
    }
    // what enters layer 1: the embeddings (after their LayerNorm, and a projection where the family has one)
    float[] embed = r.cache().get(HookPoint.residPre(0)).vector(d, 0, p);
    List<DlaRow> rows = new ArrayList<>();
    rows.add(new DlaRow("embed", 0, 0, p, dot(embed, a[0]), k < 2 ? Double.NaN : dot(embed, a[1])));
    for (int l = 0; l < layers; l++) {
      for (int hh = 0; hh < heads; hh++) {
        rows.add(part("head", l + 1, hh + 1, p, parts[l][hh]));
      }
      rows.add(part("attn_bias", l + 1, 0, p, parts[l][heads]));
      rows.add(part("mlp", l + 1, 0, p, parts[l][heads + 1]));
    }
    rows.add(part("bias", 0, 0, p, constant));
    return rows;
  }

  /** The logit directions pulled back through a frozen masked-LM head to its input, and what the head adds itself. */
  private record Pulled(double[][] a, double[] constant) {}

  /**
   * The masked-LM head {@code E . LN3(act(W h + b)) + bias} frozen at its input {@code h} on this run (the
   * activation as the ratio {@code act(t)/t}, LN3's scale): each asked token's direction on {@code h}, and the
   * constant the head's biases give its logit.
   */
  private Pulled throughHead(float[] h, PostLayerNormWeights w) {
    int k = w.rows().length; // 1 or 2 tokens
    int d = h.length;
    // the head: t = W h + b; g = act(t), frozen as r .* t with r = act(t) / t; u = LN3(g); logit = E . u + bias
    int e = w.denseBias().length;
    float[] t = new float[e];
    for (int i = 0; i < e; i++) {
      double s = w.denseBias()[i];
      for (int j = 0; j < d; j++) {
        s += (double) w.denseWeight()[i][j] * h[j];
      }
      t[i] = (float) s;
    }
    float[] g = model.headActivation(t); // the engine's own GELU, so the ratio is the run's
    double sigma3 = Math.sqrt(variance(g) + w.eps());
    double[][] a = new double[k][];
    double[] constant = new double[k];
    for (int v = 0; v < k; v++) {
      double[] ag = new double[e];
      for (int i = 0; i < e; i++) {
        ag[i] = (double) w.headLnWeight()[i] * w.rows()[v][i] / sigma3;
      }
      center(ag);
      constant[v] = w.bias()[v] + dot(w.rows()[v], w.headLnBias());
      double[] at = new double[e];
      for (int i = 0; i < e; i++) {
        // act(0) = 0 for GELU, so a zero pre-activation passes nothing whatever the ratio; 0 avoids 0/0
        at[i] = t[i] == 0 ? 0 : ag[i] * (g[i] / (double) t[i]);
        constant[v] += at[i] * w.denseBias()[i];
      }
      a[v] = new double[d];
      for (int i = 0; i < e; i++) {
        for (int j = 0; j < d; j++) {
          a[v][j] += w.denseWeight()[i][j] * at[i];
        }
      }
    }
    return new Pulled(a, constant);
  }

  /**
   * ModernBERT (a pre-norm encoder with a masked-LM head): the stream the final norm reads is a sum, {@code embed
   * + sum_l (sum_h result_{l,h} + b_O,l + mlp_out_l)}, as GPT-2's; the final norm's scale is frozen at its value on
   * the full stream (as for GPT-2), and the head after it as for BERT (its activation's ratio and its norm's scale
   * frozen). Every map is then affine and the rows sum to the logit exactly (in exact arithmetic), the {@code bias}
   * row holding the decoder bias and the norms' betas as they reach it.
   */
  private List<DlaRow> preNormMaskedLm(RunResult r, int p, PreNormMaskedLmWeights w) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int d = model.config().hiddenSize();
    float[] stream = r.cache().get(HookPoint.residPost(layers - 1)).vector(d, 0, p);
    double mean = 0;
    for (float x : stream) {
      mean += x / (double) d;
    }
    double sigma = Math.sqrt(variance(stream) + w.eps()); // frozen: the full stream's
    float[] h = new float[d];
    for (int j = 0; j < d; j++) {
      h[j] = (float) (w.finalLnWeight()[j] * (stream[j] - mean) / sigma + w.finalLnBias()[j]);
    }
    Pulled head = throughHead(h, w.head());
    int k = head.a().length;
    double[][] a = new double[k][];
    double[] constant = head.constant().clone();
    for (int v = 0; v < k; v++) {
      constant[v] += dot(w.finalLnBias(), head.a()[v]);
      a[v] = pullBack(head.a()[v], w.finalLnWeight(), sigma); // now on the stream, a sum of the components
    }
    List<DlaRow> rows = new ArrayList<>();
    rows.add(part("embed", 0, 0, p, dots(r.cache().get(HookPoint.residPre(0)).vector(d, 0, p), a)));
    for (int l = 0; l < layers; l++) {
      Activation result = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l)); // (1, T, H, d)
      double[] bias = toDouble(r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_OUT, l)).vector(d, 0, p));
      for (int hh = 0; hh < heads; hh++) {
        float[] z = result.vector(d, 0, p, hh);
        rows.add(part("head", l + 1, hh + 1, p, dots(z, a)));
        for (int j = 0; j < d; j++) {
          bias[j] -= z[j]; // attn_out - sum_h result = b_O (0 without attention biases)
        }
      }
      rows.add(part("attn_bias", l + 1, 0, p, dots(toFloat(bias), a)));
      rows.add(part("mlp", l + 1, 0, p, dots(r.cache().get(HookPoint.of(HookPoint.Kind.MLP_OUT, l)).vector(d, 0, p), a)));
    }
    rows.add(part("bias", 0, 0, p, constant));
    return rows;
  }

  private static double[] dots(float[] x, double[][] a) {
    double[] out = new double[a.length];
    for (int v = 0; v < a.length; v++) {
      out[v] = dot(x, a[v]);
    }
    return out;
  }

  private static DlaRow part(String kind, int layer, int head, int p, double[] values) {
    return new DlaRow(kind, layer, head, p, values[0], values.length < 2 ? Double.NaN : values[1]);
  }

  /** A LayerNorm with its scale frozen, {@code x -> gamma (x - mean x) / sigma}, is symmetric in what it does to a
   * direction: {@code a . gamma center(x) / sigma = (center(gamma a) / sigma) . x}. */
  private static double[] pullBack(double[] a, float[] gamma, double sigma) {
    double[] out = new double[a.length];
    for (int j = 0; j < a.length; j++) {
      out[j] = gamma[j] * a[j] / sigma;
    }
    center(out);
    return out;
  }

  private static void center(double[] x) {
    double mean = 0;
    for (double v : x) {
      mean += v / x.length;
    }
    for (int j = 0; j < x.length; j++) {
      x[j] -= mean;
    }
  }

  private static double dot(float[] x, double[] y) {
    double s = 0;
    for (int j = 0; j < x.length; j++) {
      s += x[j] * y[j];
    }
    return s;
  }

  private static double dot(float[] x, float[] y) {
    double s = 0;
    for (int j = 0; j < x.length; j++) {
      s += x[j] * (double) y[j];
    }
    return s;
  }

  private static double dot(double[] x, double[] y) {
    double s = 0;
    for (int j = 0; j < x.length; j++) {
      s += x[j] * y[j];
    }
    return s;
  }

  private static float[] add(float[] x, float[] y) {
    float[] out = new float[x.length];
    for (int j = 0; j < x.length; j++) {
      out[j] = x[j] + y[j]; // float, as the engine adds them before its LayerNorm
    }
    return out;
  }

  private static DlaRow row(String kind, int layer, int head, int p, float[] c, double sigma, UnembedWeights u,
      long contrast) {
    return new DlaRow(kind, layer, head, p, direct(c, sigma, u, 0),
        contrast < 0 ? Double.NaN : direct(c, sigma, u, 1));
  }

  /** {@code W_U[token] . (gamma * (c - mean(c)) / sigma)}; an RMSNorm centres nothing: {@code W_U[token] . (gamma * c / sigma)}. */
  private static double direct(float[] c, double sigma, UnembedWeights u, int token) {
    double mean = 0;
    for (float x : c) {
      mean += u.rms() ? 0 : x / (double) c.length;
    }
    double s = 0;
    for (int j = 0; j < c.length; j++) {
      s += u.rows()[token][j] * (double) u.lnWeight()[j] * (c[j] - mean);
    }
    return s / sigma;
  }

  private static double meanSquare(float[] x) {
    double s = 0;
    for (float v : x) {
      s += v * (double) v;
    }
    return s / x.length;
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
