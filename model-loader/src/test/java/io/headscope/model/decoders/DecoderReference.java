package io.headscope.model.decoders;

/**
 * Llama's forward pass in double, written from the equations of transformers' {@code modeling_llama.py}
 * (and Qwen2's biases, Mistral's window), not from HeadScope's engine: plain arrays, one token row at a
 * time. Beside every value it carries the standard deviation of the error a float32 computation of the
 * same equations makes (probabilistic rounding error analysis, Higham and Mary 2019: each rounding is
 * {@code (1 + d)} with {@code d} independent, mean zero and {@code |d| <= u = 2^-24}), propagated to first
 * order. A test then allows {@link #LAMBDA} standard deviations, a bound derived from the equations and
 * the values, not tuned on one CPU (summation order, FMA or not, vector widths only change which of the
 * independent roundings occur).
 *
 * <p>Why not the worst-case bound (Wilkinson's): it adds every error in absolute value through every
 * weight matrix, {@code |W| |e|}, which grows by about {@code sum |W_ij|} (8 to 24 here) per product; on
 * these models it already allows 3e-4 in the first layer's maps and 2.9 (more than the values) at the
 * second layer's input, so it bounds nothing. Real errors are not aligned: a product moves an error vector
 * by {@code W e}, whose size is about {@code sqrt(sum W_ij^2 e_j^2)}.
 *
 * <p>The rules, with {@code s} the error's standard deviation:
 *
 * <ul>
 *   <li>a dot product of n terms plus a bias: {@code sqrt(sum W^2 s_x^2)}, and its own roundings, n partial
 *       sums each at most the sum of the magnitudes: {@code sqrt(n + 1) u sum |W x|};
 *   <li>a sum {@code a + b}: {@code sqrt(s_a^2 + s_b^2 + u^2 (a + b)^2)};
 *   <li>RMSNorm {@code g x / r}, {@code r = sqrt(mean(x^2) + eps)}: {@code r}'s relative error is half
 *       that of {@code mean(x^2) + eps}, whose error is {@code 2/n sqrt(sum x^2 s^2)} plus {@code sqrt(n +
 *       2)} roundings; each output adds three roundings;
 *   <li>rotary: the cosines and sines rounded once to float (the engine computes the angles in double),
 *       two products and a sum;
 *   <li>softmax {@code p_i = e^{s_i} / sum e^{s_k}}: to first order {@code dp_i = p_i (ds_i - sum_k p_k
 *       ds_k)}, so {@code s_p_i^2 = p_i^2 ((1 - p_i)^2 s_i^2 + sum_{k != i} p_k^2 s_k^2)}, plus {@code
 *       (T + 6)} relative roundings (the maximum's subtraction, the exponentials at up to 2 ulp, the sum,
 *       the division);
 *   <li>SiLU: slope in [-0.1, 1.1], so an input error s moves it by at most 1.1 s; the sigmoid (2 ulp) and
 *       two products round.
 * </ul>
 *
 * <p>Masked keys (later tokens, or beyond Mistral's window) get probability exactly 0 in both: the engine
 * adds -10000 to their scores, and exp(-10000) is 0 in float32.
 */
final class DecoderReference {
  static final double U = Math.scalb(1.0, -24);
  /**
   * How many standard deviations a test allows. Were the error Gaussian, 8 would be exceeded once in 1e15
   * entries; first-order propagation that ignores the correlation of errors within a vector may
   * underestimate by a small factor, which 8 also covers (the tests print the largest ratio seen).
   */
  static final double LAMBDA = 8;

  /**
   * Maps and the standard deviations of their float32 errors, {@code [layer][query head][query][key]};
   * the final-norm logits of the last token.
   */
  record Result(double[][][][] attention, double[][][][] sigma, double[] lastLogits) {}

  private DecoderReference() {}

  /** A (T, n) block of values and their error bounds. */
  record V(double[][] v, double[][] e) {
    static V exact(double[][] v) {
      return new V(v, new double[v.length][v[0].length]);
    }
  }

  /**
   * Llama's inverse frequencies: {@code theta^(-2i/dh)}, and with Llama 3's {@code rope_scaling} (factor,
   * low, high, original) those of wavelength {@code 2 pi / f} above {@code original / low} divided by the
   * factor, below {@code original / high} kept, and between blended: {@code (1 - s) f / factor + s f}, {@code
   * s = (original / wavelength - low) / (high - low)} (transformers' {@code _compute_llama3_parameters}).
   */
  static double[] inverseFrequencies(double theta, int dh, double[] llama3) {
    double[] f = new double[dh / 2];
    for (int i = 0; i < f.length; i++) {
      double inv = Math.pow(theta, -(double) (2 * i) / dh);
      if (llama3 != null) {
        double factor = llama3[0];
        double low = llama3[1];
        double high = llama3[2];
        double original = llama3[3];
        double wavelen = 2 * Math.PI / inv;
        double scaled = wavelen > original / low ? inv / factor : inv;
        double smooth = (original / wavelen - low) / (high - low);
        double smoothed = (1 - smooth) * scaled / factor + smooth * scaled;
        boolean medium = !(wavelen < original / high) && !(wavelen > original / low);
        inv = medium ? smoothed : scaled;
      }
      f[i] = inv;
    }
    return f;
  }

  static Result run(TinyDecoder m, long[] ids) {
    TinyDecoder.Spec s = m.spec;
    int t = ids.length;
    int d = s.hidden();
    int h = s.heads();
    int kv = s.kvHeads();
    int dh = s.headSize();
    double[][] emb = m.weights.get("model.embed_tokens.weight").matrix();
    double[][] x0 = new double[t][];
    for (int i = 0; i < t; i++) {
      x0[i] = emb[(int) ids[i]].clone(); // exact: the widened weights are the stored values
    }
    boolean gemma = s.modelType().equals("gemma");
    V x = V.exact(x0);
    if (gemma) {
      // GemmaModel: embeddings times sqrt(hidden_size) as a tensor of the computing dtype (float32); one rounding
      double normalizer = (float) Math.sqrt(d);
      double[][] e0 = new double[t][d];
      for (int i = 0; i < t; i++) {
        for (int c = 0; c < d; c++) {
          x0[i][c] *= normalizer;
          e0[i][c] = U * Math.abs(x0[i][c]);
        }
      }
      x = new V(x0, e0);
    }
    double[] inv = inverseFrequencies(s.ropeTheta(), dh, s.llama3Scaling());
    double[][][][] att = new double[s.layers()][h][][];
    double[][][][] bound = new double[s.layers()][h][][];
    for (int l = 0; l < s.layers(); l++) {
      String p = "model.layers." + l + ".";
      V a = rmsNorm(x, gain(m, p + "input_layernorm.weight"), s.rmsEps());
      V q = linear(a, m.weights.get(p + "self_attn.q_proj.weight").matrix(), bias(m, p + "self_attn.q_proj.bias"));
      V k = linear(a, m.weights.get(p + "self_attn.k_proj.weight").matrix(), bias(m, p + "self_attn.k_proj.bias"));
      V v = linear(a, m.weights.get(p + "self_attn.v_proj.weight").matrix(), bias(m, p + "self_attn.v_proj.bias"));
      V z = new V(new double[t][h * dh], new double[t][h * dh]);
      for (int head = 0; head < h; head++) {
        int group = head / (h / kv); // repeat_kv: query head h reads key/value head h / (H / K)
        V qh = rotate(slice(q, head * dh, dh), inv);
        V kh = rotate(slice(k, group * dh, dh), inv);
        V vh = slice(v, group * dh, dh);
        double[][] pm = new double[t][t];
        double[][] pe = new double[t][t];
        for (int i = 0; i < t; i++) {
          double[] sc = new double[t];
          double[] se = new double[t];
          double max = Double.NEGATIVE_INFINITY;
          double delta = 0;
          for (int j = 0; j < t; j++) {
            if (!visible(i, j, s.window())) {
              continue;
            }
            double dot = 0;
            double mag = 0;
            double var = 0;
            for (int c = 0; c < dh; c++) {
              double qv = qh.v[i][c];
              double kv2 = kh.v[j][c];
              dot += qv * kv2;
              mag += Math.abs(qv * kv2);
              var += qv * qv * kh.e[j][c] * kh.e[j][c] + kv2 * kv2 * qh.e[i][c] * qh.e[i][c];
            }
            double root = Math.sqrt(dh);
            sc[j] = dot / root;
            se[j] = (Math.sqrt(var) + Math.sqrt(dh + 2) * U * mag) / root;
            max = Math.max(max, sc[j]);
          }
          double sum = 0;
          for (int j = 0; j < t; j++) {
            if (visible(i, j, s.window())) {
              sum += Math.exp(sc[j] - max);
              // subtracting the maximum rounds once: u |s - max| more in the exponent
              se[j] = Math.hypot(se[j], U * Math.abs(sc[j] - max));
            }
          }
          for (int j = 0; j < t; j++) {
            if (visible(i, j, s.window())) {
              pm[i][j] = Math.exp(sc[j] - max) / sum;
            }
          }
          double spread = 0; // sum_k p_k^2 s_k^2
          for (int j = 0; j < t; j++) {
            spread += pm[i][j] * pm[i][j] * se[j] * se[j];
          }
          for (int j = 0; j < t; j++) {
            if (visible(i, j, s.window())) {
              double pj = pm[i][j];
              double own = (1 - pj) * (1 - pj) * se[j] * se[j] + spread - pj * pj * se[j] * se[j];
              pe[i][j] = pj * Math.sqrt(Math.max(0, own) + (t + 6) * U * U);
            }
          }
          for (int c = 0; c < dh; c++) {
            double val = 0;
            double err = 0;
            double mag = 0;
            for (int j = 0; j < t; j++) {
              val += pm[i][j] * vh.v[j][c];
              err += pe[i][j] * pe[i][j] * vh.v[j][c] * vh.v[j][c] + pm[i][j] * pm[i][j] * vh.e[j][c] * vh.e[j][c];
              mag += pm[i][j] * Math.abs(vh.v[j][c]);
            }
            z.v[i][head * dh + c] = val;
            z.e[i][head * dh + c] = Math.sqrt(err) + Math.sqrt(t) * U * mag;
          }
        }
        att[l][head] = pm;
        bound[l][head] = pe;
      }
      V o = linear(z, m.weights.get(p + "self_attn.o_proj.weight").matrix(), null);
      x = add(x, o);
      V b = rmsNorm(x, gain(m, p + "post_attention_layernorm.weight"), s.rmsEps());
      V gate = linear(b, m.weights.get(p + "mlp.gate_proj.weight").matrix(), null);
      V up = linear(b, m.weights.get(p + "mlp.up_proj.weight").matrix(), null);
      V prod = gemma ? geluTimes(gate, up) : siluTimes(gate, up);
      x = add(x, linear(prod, m.weights.get(p + "mlp.down_proj.weight").matrix(), null));
    }
    V fin = rmsNorm(x, gain(m, "model.norm.weight"), s.rmsEps());
    double[][] unembed = (s.tied() ? m.weights.get("model.embed_tokens.weight") : m.weights.get("lm_head.weight")).matrix();
    double[] logits = new double[unembed.length];
    for (int r = 0; r < unembed.length; r++) {
      for (int c = 0; c < d; c++) {
        logits[r] += unembed[r][c] * fin.v[t - 1][c];
      }
    }
    return new Result(att, bound, logits);
  }

  /** Mistral's window as current transformers has it: key j is seen from query i when i - window < j <= i. */
  static boolean visible(int i, int j, int window) {
    return j <= i && (window <= 0 || j > i - window);
  }

  /** A norm's scale: the stored weight, or Gemma's {@code 1 + w} (GemmaRMSNorm). */
  private static double[] gain(TinyDecoder m, String name) {
    double[] w = m.weights.get(name).values().clone();
    if (m.gemma()) {
      for (int i = 0; i < w.length; i++) {
        w[i] += 1;
      }
    }
    return w;
  }

  private static double[] bias(TinyDecoder m, String name) {
    TinyDecoder.Tensor t = m.weights.get(name);
    return t == null ? null : t.values();
  }

  static V linear(V x, double[][] w, double[] b) {
    int t = x.v.length;
    int in = w[0].length;
    double[][] y = new double[t][w.length];
    double[][] e = new double[t][w.length];
    for (int i = 0; i < t; i++) {
      for (int o = 0; o < w.length; o++) {
        double val = b == null ? 0 : b[o];
        double mag = b == null ? 0 : Math.abs(b[o]);
        double var = 0;
        for (int c = 0; c < in; c++) {
          val += w[o][c] * x.v[i][c];
          mag += Math.abs(w[o][c] * x.v[i][c]);
          var += w[o][c] * w[o][c] * x.e[i][c] * x.e[i][c];
        }
        y[i][o] = val;
        e[i][o] = Math.sqrt(var) + Math.sqrt(in + 1) * U * mag;
      }
    }
    return new V(y, e);
  }

  static V add(V a, V b) {
    int t = a.v.length;
    int n = a.v[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      for (int c = 0; c < n; c++) {
        y[i][c] = a.v[i][c] + b.v[i][c];
        e[i][c] = Math.sqrt(a.e[i][c] * a.e[i][c] + b.e[i][c] * b.e[i][c] + U * U * y[i][c] * y[i][c]);
      }
    }
    return new V(y, e);
  }

  /** LlamaRMSNorm: {@code g * x / sqrt(mean(x^2) + eps)}. */
  private static V rmsNorm(V x, double[] gain, double eps) {
    int t = x.v.length;
    int n = x.v[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      double ms = 0;
      double var = 0;
      for (int c = 0; c < n; c++) {
        ms += x.v[i][c] * x.v[i][c];
        var += x.v[i][c] * x.v[i][c] * x.e[i][c] * x.e[i][c];
      }
      ms /= n;
      // d mean(x^2) = 2/n sum x dx; the squares, the sum, the division and adding eps round
      double dms = 2 * Math.sqrt(var) / n + Math.sqrt(n + 3) * U * (ms + eps);
      double relRoot = Math.hypot(dms / (ms + eps) / 2, U); // sqrt halves it, then rounds once
      double root = Math.sqrt(ms + eps);
      for (int c = 0; c < n; c++) {
        y[i][c] = gain[c] * x.v[i][c] / root;
        double ex = Math.abs(gain[c]) * x.e[i][c] / root;
        e[i][c] = Math.sqrt(ex * ex + y[i][c] * y[i][c] * (relRoot * relRoot + 2 * U * U));
      }
    }
    return new V(y, e);
  }

  static V slice(V x, int from, int width) {
    int t = x.v.length;
    double[][] y = new double[t][width];
    double[][] e = new double[t][width];
    for (int i = 0; i < t; i++) {
      System.arraycopy(x.v[i], from, y[i], 0, width);
      System.arraycopy(x.e[i], from, e[i], 0, width);
    }
    return new V(y, e);
  }

  /**
   * {@code x cos + rotate_half(x) sin} at each row's position, {@code rotate_half([x1, x2]) = [-x2, x1]}, the
   * angle of dimensions c and c + dh/2 being {@code position * inv[c]} (transformers' {@code
   * apply_rotary_pos_emb} with {@code emb = cat(freqs, freqs)}).
   */
  static V rotate(V x, double[] inv) {
    int t = x.v.length;
    int dh = x.v[0].length;
    int half = dh / 2;
    double[][] y = new double[t][dh];
    double[][] e = new double[t][dh];
    for (int p = 0; p < t; p++) {
      for (int c = 0; c < dh; c++) {
        double angle = p * inv[c % half];
        double cos = Math.cos(angle);
        double sin = Math.sin(angle);
        int partner = c < half ? c + half : c - half;
        double rot = c < half ? -x.v[p][partner] : x.v[p][partner];
        double er = x.e[p][partner];
        y[p][c] = x.v[p][c] * cos + rot * sin;
        double a = x.v[p][c] * cos;
        double r = rot * sin;
        // input errors, the rounding of cos and sin to float, two products and a sum
        e[p][c] = Math.sqrt(x.e[p][c] * x.e[p][c] * cos * cos + er * er * sin * sin
            + 2 * U * U * (a * a + r * r) + U * U * y[p][c] * y[p][c]);
      }
    }
    return new V(y, e);
  }

  /**
   * GeGLU's product {@code gelu(gate) * up} with the tanh GELU ({@code gelu_pytorch_tanh}: {@code x/2 (1 +
   * tanh(sqrt(2/pi) (x + 0.044715 x^3)))}), whose slope lies in [-0.17, 1.13]; its six operations round
   * on terms of at most {@code |x| + 0.045 |x|^3}.
   */
  static V geluTimes(V gate, V up) {
    int t = gate.v.length;
    int n = gate.v[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      for (int c = 0; c < n; c++) {
        double gv = gate.v[i][c];
        double gelu = 0.5 * gv * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (gv + 0.044715 * gv * gv * gv)));
        double a = Math.abs(gv);
        double es = Math.hypot(1.13 * gate.e[i][c], 8 * U * (a + 0.045 * a * a * a));
        double uv = up.v[i][c];
        y[i][c] = gelu * uv;
        e[i][c] = Math.sqrt(gelu * gelu * up.e[i][c] * up.e[i][c] + uv * uv * es * es + U * U * y[i][c] * y[i][c]);
      }
    }
    return new V(y, e);
  }

  /** SwiGLU's product {@code silu(gate) * up}, {@code silu(x) = x / (1 + e^-x)}. */
  private static V siluTimes(V gate, V up) {
    int t = gate.v.length;
    int n = gate.v[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      for (int c = 0; c < n; c++) {
        double gv = gate.v[i][c];
        double silu = gv / (1 + Math.exp(-gv));
        double es = Math.hypot(1.1 * gate.e[i][c], 3 * U * Math.abs(silu));
        double uv = up.v[i][c];
        y[i][c] = silu * uv;
        e[i][c] = Math.sqrt(silu * silu * up.e[i][c] * up.e[i][c] + uv * uv * es * es + U * U * y[i][c] * y[i][c]);
      }
    }
    return new V(y, e);
  }
}
