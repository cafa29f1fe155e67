package io.headscope.model.testing.families;

/**
 * The few operations a transformer forward pass needs, on plain {@code double[][]} (rows are tokens), as
 * the PyTorch modules define them. Double precision throughout, so that the reference's own rounding is
 * far below the float32 engine's.
 */
final class ReferenceMath {
  private ReferenceMath() {}

  /** nn.Linear: {@code x W^T + b}, W stored (out, in). */
  static double[][] linear(double[][] x, double[][] w, double[] b) {
    int out = w.length;
    int in = w[0].length;
    double[][] y = new double[x.length][out];
    for (int t = 0; t < x.length; t++) {
      for (int o = 0; o < out; o++) {
        double s = b == null ? 0 : b[o];
        for (int i = 0; i < in; i++) {
          s += x[t][i] * w[o][i];
        }
        y[t][o] = s;
      }
    }
    return y;
  }

  /** transformers' Conv1D: {@code x W + b}, W stored (in, out), the transpose of nn.Linear's. */
  static double[][] conv1d(double[][] x, double[][] w, double[] b) {
    int in = w.length;
    int out = w[0].length;
    double[][] y = new double[x.length][out];
    for (int t = 0; t < x.length; t++) {
      for (int o = 0; o < out; o++) {
        double s = b[o];
        for (int i = 0; i < in; i++) {
          s += x[t][i] * w[i][o];
        }
        y[t][o] = s;
      }
    }
    return y;
  }

  /** nn.LayerNorm over the last dimension: biased variance, eps inside the square root. */
  static double[][] layerNorm(double[][] x, double[] gamma, double[] beta, double eps) {
    double[][] y = new double[x.length][];
    for (int t = 0; t < x.length; t++) {
      int n = x[t].length;
      double mean = 0;
      for (double v : x[t]) {
        mean += v;
      }
      mean /= n;
      double var = 0;
      for (double v : x[t]) {
        var += (v - mean) * (v - mean);
      }
      var /= n;
      double inv = 1 / Math.sqrt(var + eps);
      y[t] = new double[n];
      for (int i = 0; i < n; i++) {
        y[t][i] = (x[t][i] - mean) * inv * gamma[i] + beta[i];
      }
    }
    return y;
  }

  static double[][] add(double[][] a, double[][] b) {
    double[][] y = new double[a.length][a[0].length];
    for (int t = 0; t < a.length; t++) {
      for (int i = 0; i < a[t].length; i++) {
        y[t][i] = a[t][i] + b[t][i];
      }
    }
    return y;
  }

  /** transformers' ACT2FN entries the families use. */
  static double[][] activation(String name, double[][] x) {
    double[][] y = new double[x.length][x[0].length];
    for (int t = 0; t < x.length; t++) {
      for (int i = 0; i < x[t].length; i++) {
        y[t][i] = activation(name, x[t][i]);
      }
    }
    return y;
  }

  static double activation(String name, double x) {
    return switch (name) {
      // GELUActivation: x * 0.5 * (1 + erf(x / sqrt(2))), the exact one.
      case "gelu" -> 0.5 * x * (1 + Erf.erf(x / Math.sqrt(2)));
      // NewGELUActivation / PytorchGELUTanh / FastGELUActivation: Google's tanh approximation.
      case "gelu_new", "gelu_pytorch_tanh", "gelu_fast" ->
          0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
      case "relu" -> Math.max(0, x);
      default -> throw new IllegalArgumentException("activation " + name + " is not in the reference");
    };
  }

  /**
   * Multi-head scaled dot-product attention over projected {@code q, k, v} (T, heads x dh). Fills
   * {@code pattern[head][query][key]} with the softmax probabilities and returns the heads' outputs
   * concatenated (T, heads x dh). With {@code causal}, keys after the query get probability exactly 0
   * (transformers fills their scores with the dtype's minimum, whose exp underflows to 0).
   */
  static double[][] attention(double[][] q, double[][] k, double[][] v, int heads, double scale, boolean causal,
      double[][][] pattern) {
    int n = q.length;
    int dh = q[0].length / heads;
    double[][] z = new double[n][heads * dh];
    for (int h = 0; h < heads; h++) {
      int c0 = h * dh;
      pattern[h] = new double[n][];
      for (int i = 0; i < n; i++) {
        int last = causal ? i : n - 1;
        double[] scores = new double[n];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j <= last; j++) {
          double s = 0;
          for (int c = 0; c < dh; c++) {
            s += q[i][c0 + c] * k[j][c0 + c];
          }
          scores[j] = s * scale;
          max = Math.max(max, scores[j]);
        }
        double sum = 0;
        double[] p = new double[n];
        for (int j = 0; j <= last; j++) {
          p[j] = Math.exp(scores[j] - max);
          sum += p[j];
        }
        for (int j = 0; j <= last; j++) {
          p[j] /= sum;
          for (int c = 0; c < dh; c++) {
            z[i][c0 + c] += p[j] * v[j][c0 + c];
          }
        }
        pattern[h][i] = p;
      }
    }
    return z;
  }
}
