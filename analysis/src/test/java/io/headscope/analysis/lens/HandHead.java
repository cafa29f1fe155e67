package io.headscope.analysis.lens;

import io.headscope.model.checkpoint.Safetensors;
import java.nio.file.Path;

/**
 * The output heads computed by hand in double precision from the checkpoint's own tensors (read with
 * {@link Safetensors}), independent of the engine: BERT's {@code cls.predictions} and GPT-2's
 * {@code ln_f} and tied decoder.
 */
final class HandHead {
  private HandHead() {}

  /** BERT: dense, erf GELU, LayerNorm, decoder (the word embeddings) and bias; probabilities. */
  static double[] bert(Path safetensors, String prefix, float[] h, double eps) {
    return softmax(bertLogits(safetensors, prefix, h, eps));
  }

  /** BERT's head as {@link #bert}, its logits. */
  static double[] bertLogits(Path safetensors, String prefix, float[] h, double eps) {
    try (Safetensors st = Safetensors.open(safetensors)) {
      float[] w = st.readFloat("cls.predictions.transform.dense.weight").data();
      float[] b = st.readFloat("cls.predictions.transform.dense.bias").data();
      float[] g = st.readFloat("cls.predictions.transform.LayerNorm.weight").data();
      float[] beta = st.readFloat("cls.predictions.transform.LayerNorm.bias").data();
      float[] e = st.readFloat(prefix + "embeddings.word_embeddings.weight").data();
      float[] bias = st.readFloat("cls.predictions.bias").data();
      int d = h.length;
      double[] t = new double[d];
      for (int i = 0; i < d; i++) {
        double s = b[i];
        for (int j = 0; j < d; j++) {
          s += (double) w[i * d + j] * h[j];
        }
        t[i] = 0.5 * s * (1 + erf(s / Math.sqrt(2)));
      }
      double[] n = layerNorm(t, g, beta, eps);
      double[] logits = new double[bias.length];
      for (int v = 0; v < logits.length; v++) {
        double s = bias[v];
        for (int j = 0; j < d; j++) {
          s += (double) e[v * d + j] * n[j];
        }
        logits[v] = s;
      }
      return logits;
    }
  }

  /** GPT-2: ln_f, then the tied word embeddings; probabilities. */
  static double[] gpt2(Path safetensors, float[] h, double eps) {
    try (Safetensors st = Safetensors.open(safetensors)) {
      double[] x = new double[h.length];
      for (int i = 0; i < h.length; i++) {
        x[i] = h[i];
      }
      double[] n = layerNorm(x, st.readFloat("transformer.ln_f.weight").data(),
          st.readFloat("transformer.ln_f.bias").data(), eps);
      float[] e = st.readFloat("transformer.wte.weight").data();
      int d = h.length;
      double[] logits = new double[e.length / d];
      for (int v = 0; v < logits.length; v++) {
        for (int j = 0; j < d; j++) {
          logits[v] += (double) e[v * d + j] * n[j];
        }
      }
      return softmax(logits);
    }
  }

  static double[] layerNorm(double[] x, float[] g, float[] b, double eps) {
    double mean = 0;
    for (double v : x) {
      mean += v / x.length;
    }
    double var = 0;
    for (double v : x) {
      var += (v - mean) * (v - mean) / x.length;
    }
    double[] out = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = (x[i] - mean) / Math.sqrt(var + eps) * g[i] + b[i];
    }
    return out;
  }

  static double[] softmax(double[] z) {
    double max = Double.NEGATIVE_INFINITY;
    for (double v : z) {
      max = Math.max(max, v);
    }
    double sum = 0;
    double[] p = new double[z.length];
    for (int i = 0; i < z.length; i++) {
      p[i] = Math.exp(z[i] - max);
      sum += p[i];
    }
    for (int i = 0; i < z.length; i++) {
      p[i] /= sum;
    }
    return p;
  }

  /** Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7): enough for a 1e-5 comparison. */
  static double erf(double x) {
    double t = 1 / (1 + 0.3275911 * Math.abs(x));
    double y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
        * Math.exp(-x * x);
    return Math.signum(x) * y;
  }
}
