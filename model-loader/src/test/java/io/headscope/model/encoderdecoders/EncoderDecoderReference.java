package io.headscope.model.encoderdecoders;

/**
 * T5's and BART's forward passes in double, written from the equations of transformers' {@code
 * modeling_t5.py} and {@code modeling_bart.py}, not from HeadScope's engine: plain arrays, one token row
 * at a time. As {@code decoders.DecoderReference} does, every value carries the standard deviation of the
 * error a float32 computation of the same equations makes (each rounding {@code (1 + d)}, {@code |d| <= u =
 * 2^-24}, independent, propagated to first order), and a test allows {@link #LAMBDA} of them: a bound
 * derived from the equations and the values, not tuned on one CPU.
 *
 * <p>The equations followed:
 *
 * <ul>
 *   <li>T5 ({@code T5Stack}, {@code T5LayerSelfAttention}, {@code T5LayerCrossAttention}, {@code
 *       T5LayerFF}): {@code x = shared[ids]}; each layer {@code x += SelfAttention(norm(x))}, in the decoder
 *       {@code x += EncDecAttention(norm(x), encoder_out)}, then {@code x += FF(norm(x))}; {@code norm} is
 *       T5LayerNorm {@code g x / sqrt(mean(x^2) + eps)}; scores {@code q k^T} (no scaling) plus the first
 *       layer's relative bias {@code table[bucket(key - query)]} in every layer (none in cross-attention),
 *       plus the causal mask in the decoder; {@code FF = wo(relu(wi x))} or {@code wo(gelu_new(wi_0 x) * wi_1
 *       x)}; a final norm per stack; logits {@code lm_head(x d^-0.5)} when tied.</li>
 *   <li>BART ({@code BartEncoder}, {@code BartDecoder}, their layers): {@code x = shared[ids] * scale +
 *       positions[2 + i]}, {@code layernorm_embedding}; each layer {@code x = ln(x + self_attn(x))}, in the
 *       decoder {@code x = ln(x + encoder_attn(x, encoder_out))}, then {@code x = ln(x + fc2(gelu(fc1 x)))};
 *       attention {@code softmax((q dh^-0.5) k^T) v}; logits {@code x shared^T + final_logits_bias}.</li>
 * </ul>
 *
 * <p>The error rules are {@code DecoderReference}'s (a dot product {@code sqrt(sum W^2 s^2) + sqrt(n + 1) u
 * sum |W x|}, sums, RMSNorm, softmax), plus: LayerNorm {@code g (x - mean) / sd + b}: to first order an input
 * error moves output c by {@code g_c / sd (e_c - mean(e) - xhat_c mean(xhat e))}, whose deviation is {@code |g_c| / sd
 * sqrt(sum_k (delta_ck - 1/n - xhat_c xhat_k / n)^2 s_k^2)}, plus the mean's, the variance's and the
 * division's {@code sqrt(n + 6)} roundings on {@code |g_c xhat_c|} and one on the result; ReLU and GELU pass an
 * error with a slope of at most 1 and 1.13.
 */
final class EncoderDecoderReference {
  static final double U = Math.scalb(1.0, -24);
  /** Standard deviations allowed: as {@code DecoderReference.LAMBDA}. */
  static final double LAMBDA = 8;

  /** Maps and their error deviations per kind, and the logits at every target position with theirs. */
  record Result(double[][][][] encoder, double[][][][] encoderSigma, double[][][][] decoder,
      double[][][][] decoderSigma, double[][][][] cross, double[][][][] crossSigma, double[][] logits,
      double[][] logitsSigma) {}

  private record V(double[][] v, double[][] e) {}

  private EncoderDecoderReference() {}

  /**
   * T5's bucket of {@code relative = key - query} straight from {@code _relative_position_bucket}'s
   * equations, in double.
   */
  static int bucket(int relative, boolean bidirectional, int numBuckets, int maxDistance) {
    int ret = 0;
    int n = numBuckets;
    int r;
    if (bidirectional) {
      n /= 2;
      if (relative > 0) {
        ret += n;
      }
      r = Math.abs(relative);
    } else {
      r = -Math.min(relative, 0);
    }
    int maxExact = n / 2;
    if (r < maxExact) {
      return ret + r;
    }
    int large = maxExact + (int) (Math.log((double) r / maxExact) / Math.log((double) maxDistance / maxExact) * (n - maxExact));
    return ret + Math.min(large, n - 1);
  }

  static Result run(TinyEncoderDecoder m, long[] source, long[] target) {
    TinyEncoderDecoder.Spec s = m.spec;
    double[][][][][] enc = new double[2][s.encoderLayers()][][][];
    double[][][][][] dec = new double[2][s.decoderLayers()][][][];
    double[][][][][] cross = new double[2][s.decoderLayers()][][][];
    V memory = stack(m, source, null, false, enc, null);
    V out = stack(m, target, memory, true, dec, cross);
    double[][] head = (s.tied() ? m.weights.get(s.t5() ? "shared.weight" : "model.shared.weight") : m.weights.get("lm_head.weight")).matrix();
    if (s.t5() && s.tied()) {
      double scale = Math.pow(s.d(), -0.5);
      double[][] y = new double[out.v.length][s.d()];
      double[][] e = new double[out.v.length][s.d()];
      for (int i = 0; i < y.length; i++) {
        for (int c = 0; c < s.d(); c++) {
          y[i][c] = out.v[i][c] * scale;
          // the scale rounded to float once, the product once
          e[i][c] = Math.sqrt(out.e[i][c] * out.e[i][c] * scale * scale + 2 * U * U * y[i][c] * y[i][c]);
        }
      }
      out = new V(y, e);
    }
    double[] bias = s.t5() ? null : m.weights.get("final_logits_bias").values();
    V logits = linear(out, head, bias);
    return new Result(enc[0], enc[1], dec[0], dec[1], cross[0], cross[1], logits.v, logits.e);
  }

  private static V stack(TinyEncoderDecoder m, long[] ids, V memory, boolean decoder, double[][][][][] self,
      double[][][][][] cross) {
    TinyEncoderDecoder.Spec s = m.spec;
    String st = decoder ? "decoder" : "encoder";
    int n = ids.length;
    int d = s.d();
    double[][] table = (s.t5() ? m.weights.get("shared.weight") : m.weights.get("model.shared.weight")).matrix();
    double[][] x0 = new double[n][];
    double[][] e0 = new double[n][d];
    for (int i = 0; i < n; i++) {
      x0[i] = table[(int) ids[i]].clone();
    }
    V x = new V(x0, e0);
    if (!s.t5()) {
      String b = "model." + st + ".";
      double scale = s.scaleEmbedding() ? Math.sqrt(d) : 1;
      double[][] pos = m.weights.get(b + "embed_positions.weight").matrix();
      double[][] y = new double[n][d];
      double[][] e = new double[n][d];
      for (int i = 0; i < n; i++) {
        for (int c = 0; c < d; c++) {
          double scaled = x0[i][c] * scale;
          y[i][c] = scaled + pos[i + 2][c]; // BartLearnedPositionalEmbedding: positions 0.. at rows 2..
          // sqrt(d) rounded to float, the product, the sum: one rounding each when scaled
          double es = s.scaleEmbedding() ? Math.sqrt(2) * U * Math.abs(scaled) : 0;
          e[i][c] = Math.sqrt(es * es + U * U * y[i][c] * y[i][c]);
        }
      }
      x = layerNorm(new V(y, e), m.weights.get(b + "layernorm_embedding.weight").values(),
          m.weights.get(b + "layernorm_embedding.bias").values());
    }
    int layers = decoder ? s.decoderLayers() : s.encoderLayers();
    double[][][] rel = null;
    if (s.t5()) {
      // the first layer's table gives every layer's bias: (H, N, N)
      double[][] w = m.weights.get(st + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight").matrix();
      rel = new double[s.heads()][n][n];
      for (int h = 0; h < s.heads(); h++) {
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < n; j++) {
            rel[h][i][j] = w[bucket(j - i, !decoder, s.buckets(), s.maxDistance())][h];
          }
        }
      }
    }
    for (int l = 0; l < layers; l++) {
      if (s.t5()) {
        String p = st + ".block." + l + ".layer.";
        V a = attention(m, rmsNorm(x, m.weights.get(p + "0.layer_norm.weight").values()), null,
            p + "0.SelfAttention.", "q", "k", "v", "o", false, rel, decoder, l, self);
        x = add(x, a);
        if (decoder) {
          V c = attention(m, rmsNorm(x, m.weights.get(p + "1.layer_norm.weight").values()), memory,
              p + "1.EncDecAttention.", "q", "k", "v", "o", false, null, false, l, cross);
          x = add(x, c);
        }
        String f = p + (decoder ? 2 : 1) + ".";
        V h = rmsNorm(x, m.weights.get(f + "layer_norm.weight").values());
        V act;
        if (s.gated()) {
          V gate = linear(h, m.weights.get(f + "DenseReluDense.wi_0.weight").matrix(), null);
          V up = linear(h, m.weights.get(f + "DenseReluDense.wi_1.weight").matrix(), null);
          act = geluTanhTimes(gate, up);
        } else {
          act = relu(linear(h, m.weights.get(f + "DenseReluDense.wi.weight").matrix(), null));
        }
        x = add(x, linear(act, m.weights.get(f + "DenseReluDense.wo.weight").matrix(), null));
      } else {
        String p = "model." + st + ".layers." + l + ".";
        V a = attention(m, x, null, p + "self_attn.", "q_proj", "k_proj", "v_proj", "out_proj", true, null, decoder, l, self);
        x = layerNorm(add(x, a), m.weights.get(p + "self_attn_layer_norm.weight").values(),
            m.weights.get(p + "self_attn_layer_norm.bias").values());
        if (decoder) {
          V c = attention(m, x, memory, p + "encoder_attn.", "q_proj", "k_proj", "v_proj", "out_proj", true, null,
              false, l, cross);
          x = layerNorm(add(x, c), m.weights.get(p + "encoder_attn_layer_norm.weight").values(),
              m.weights.get(p + "encoder_attn_layer_norm.bias").values());
        }
        V h = geluErf(linear(x, m.weights.get(p + "fc1.weight").matrix(), m.weights.get(p + "fc1.bias").values()));
        V f = linear(h, m.weights.get(p + "fc2.weight").matrix(), m.weights.get(p + "fc2.bias").values());
        x = layerNorm(add(x, f), m.weights.get(p + "final_layer_norm.weight").values(),
            m.weights.get(p + "final_layer_norm.bias").values());
      }
    }
    if (s.t5()) {
      x = rmsNorm(x, m.weights.get(st + ".final_layer_norm.weight").values());
    }
    return x;
  }

  /**
   * Multi-head attention of queries from {@code x} over {@code memory} (cross) or {@code x}: T5 {@code
   * softmax(q k^T + bias)}, BART {@code softmax(q dh^-0.5 k^T)} (dh 16 in the tests: the scale 1/4 is exact);
   * masked keys (later ones in the decoder's self-attention) get probability 0. Writes the maps and their
   * deviations into {@code out[0][layer]} and {@code out[1][layer]}.
   */
  private static V attention(TinyEncoderDecoder m, V x, V memory, String p, String qn, String kn, String vn, String on,
      boolean bias, double[][][] rel, boolean causal, int layer, double[][][][][] out) {
    TinyEncoderDecoder.Spec s = m.spec;
    V kvIn = memory == null ? x : memory;
    V q = linear(x, m.weights.get(p + qn + ".weight").matrix(), bias ? m.weights.get(p + qn + ".bias").values() : null);
    V k = linear(kvIn, m.weights.get(p + kn + ".weight").matrix(), bias ? m.weights.get(p + kn + ".bias").values() : null);
    V v = linear(kvIn, m.weights.get(p + vn + ".weight").matrix(), bias ? m.weights.get(p + vn + ".bias").values() : null);
    int tq = x.v.length;
    int tk = kvIn.v.length;
    int h = s.heads();
    int dh = s.dkv();
    double scale = s.t5() ? 1 : 1 / Math.sqrt(dh);
    double[][] z = new double[tq][h * dh];
    double[][] ze = new double[tq][h * dh];
    out[0][layer] = new double[h][][];
    out[1][layer] = new double[h][][];
    for (int head = 0; head < h; head++) {
      double[][] pm = new double[tq][tk];
      double[][] pe = new double[tq][tk];
      for (int i = 0; i < tq; i++) {
        double[] sc = new double[tk];
        double[] se = new double[tk];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < tk; j++) {
          if (causal && j > i) {
            continue;
          }
          double dot = 0;
          double mag = 0;
          double var = 0;
          for (int c = 0; c < dh; c++) {
            double qv = q.v[i][head * dh + c] * scale;
            double qe = q.e[i][head * dh + c] * scale;
            double kv = k.v[j][head * dh + c];
            double ke = k.e[j][head * dh + c];
            dot += qv * kv;
            mag += Math.abs(qv * kv);
            var += qv * qv * ke * ke + kv * kv * qe * qe;
          }
          double b = rel == null ? 0 : rel[head][i][j];
          sc[j] = dot + b;
          // the product's roundings; adding the bias rounds once more
          se[j] = Math.sqrt(var) + Math.sqrt(dh + 2) * U * mag + (rel == null ? 0 : U * Math.abs(sc[j]));
          max = Math.max(max, sc[j]);
        }
        double sum = 0;
        for (int j = 0; j < tk; j++) {
          if (!(causal && j > i)) {
            sum += Math.exp(sc[j] - max);
            se[j] = Math.hypot(se[j], U * Math.abs(sc[j] - max));
          }
        }
        for (int j = 0; j < tk; j++) {
          if (!(causal && j > i)) {
            pm[i][j] = Math.exp(sc[j] - max) / sum;
          }
        }
        double spread = 0;
        for (int j = 0; j < tk; j++) {
          spread += pm[i][j] * pm[i][j] * se[j] * se[j];
        }
        for (int j = 0; j < tk; j++) {
          if (!(causal && j > i)) {
            double pj = pm[i][j];
            double own = (1 - pj) * (1 - pj) * se[j] * se[j] + spread - pj * pj * se[j] * se[j];
            pe[i][j] = pj * Math.sqrt(Math.max(0, own) + (tk + 6) * U * U);
          }
        }
        for (int c = 0; c < dh; c++) {
          double val = 0;
          double err = 0;
          double mag = 0;
          for (int j = 0; j < tk; j++) {
            double vv = v.v[j][head * dh + c];
            val += pm[i][j] * vv;
            err += pe[i][j] * pe[i][j] * vv * vv + pm[i][j] * pm[i][j] * v.e[j][head * dh + c] * v.e[j][head * dh + c];
            mag += pm[i][j] * Math.abs(vv);
          }
          z[i][head * dh + c] = val;
          ze[i][head * dh + c] = Math.sqrt(err) + Math.sqrt(tk) * U * mag;
        }
      }
      out[0][layer][head] = pm;
      out[1][layer][head] = pe;
    }
    return linear(new V(z, ze), m.weights.get(p + on + ".weight").matrix(), bias ? m.weights.get(p + on + ".bias").values() : null);
  }

  private static V linear(V x, double[][] w, double[] b) {
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

  private static V add(V a, V b) {
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

  /** T5LayerNorm: {@code g x / sqrt(mean(x^2) + eps)}, eps 1e-6. */
  private static V rmsNorm(V x, double[] gain) {
    double eps = 1e-6;
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
      double dms = 2 * Math.sqrt(var) / n + Math.sqrt(n + 3) * U * (ms + eps);
      double relRoot = Math.hypot(dms / (ms + eps) / 2, U);
      double root = Math.sqrt(ms + eps);
      for (int c = 0; c < n; c++) {
        y[i][c] = gain[c] * x.v[i][c] / root;
        double ex = Math.abs(gain[c]) * x.e[i][c] / root;
        e[i][c] = Math.sqrt(ex * ex + y[i][c] * y[i][c] * (relRoot * relRoot + 2 * U * U));
      }
    }
    return new V(y, e);
  }

  /** nn.LayerNorm, eps 1e-5: {@code g (x - mean) / sqrt(var + eps) + b} (var without Bessel's correction). */
  private static V layerNorm(V x, double[] g, double[] b) {
    double eps = 1e-5;
    int t = x.v.length;
    int n = x.v[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      double mean = 0;
      for (int c = 0; c < n; c++) {
        mean += x.v[i][c];
      }
      mean /= n;
      double var = 0;
      for (int c = 0; c < n; c++) {
        var += (x.v[i][c] - mean) * (x.v[i][c] - mean);
      }
      var /= n;
      double sd = Math.sqrt(var + eps);
      double[] xh = new double[n];
      for (int c = 0; c < n; c++) {
        xh[c] = (x.v[i][c] - mean) / sd;
      }
      for (int c = 0; c < n; c++) {
        double xhat = xh[c];
        y[i][c] = g[c] * xhat + b[c];
        // first order: dy_c = g_c / sd (dx_c - mean(dx) - xhat_c mean(xhat dx)), each dx_k independent
        double v2 = 0;
        for (int k = 0; k < n; k++) {
          double coef = (k == c ? 1 : 0) - 1.0 / n - xhat * xh[k] / n;
          v2 += coef * coef * x.e[i][k] * x.e[i][k];
        }
        double prop = Math.abs(g[c]) / sd * Math.sqrt(v2);
        double round = Math.sqrt(n + 6) * U * Math.abs(g[c] * xhat) + U * Math.abs(y[i][c]);
        e[i][c] = prop + round;
      }
    }
    return new V(y, e);
  }

  private static V relu(V x) {
    int t = x.v.length;
    int n = x.v[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      for (int c = 0; c < n; c++) {
        y[i][c] = Math.max(0, x.v[i][c]);
        e[i][c] = x.e[i][c]; // slope 0 or 1, and exact
      }
    }
    return new V(y, e);
  }

  /** The exact GELU {@code x Phi(x)}, {@code Phi} from erf (as torch's gelu): slope in [-0.17, 1.13]. */
  private static V geluErf(V x) {
    int t = x.v.length;
    int n = x.v[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      for (int c = 0; c < n; c++) {
        double v = x.v[i][c];
        y[i][c] = 0.5 * v * (1 + erf(v / Math.sqrt(2)));
        e[i][c] = Math.hypot(1.13 * x.e[i][c], 4 * U * Math.abs(v));
      }
    }
    return new V(y, e);
  }

  /** {@code gelu_new(gate) * up} (T5 v1.1's gated-gelu): the tanh GELU, slope in [-0.17, 1.13]. */
  private static V geluTanhTimes(V gate, V up) {
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

  /**
   * erf in double: the series {@code 2/sqrt(pi) sum (-1)^k x^(2k+1) / (k! (2k+1))} below 3 (about 1e-12
   * lost to cancellation at 3), and above it {@code 1 - erfc} by erfc's continued fraction.
   */
  static double erf(double x) {
    double a = Math.abs(x);
    double r;
    if (a < 3) {
      double sum = 0;
      double term = a;
      for (int k = 0; k < 200; k++) {
        double piece = term / (2 * k + 1);
        sum += piece;
        if (Math.abs(piece) < 1e-18 * Math.abs(sum)) {
          break;
        }
        term *= -a * a / (k + 1);
      }
      r = 2 / Math.sqrt(Math.PI) * sum;
    } else {
      // erfc(a) = exp(-a^2) / sqrt(pi) * 1 / (a + 1/2 / (a + 1 / (a + 3/2 / (a + 2 / (a + ...)))))
      double f = a;
      for (int k = 60; k >= 1; k--) {
        f = a + (k / 2.0) / f;
      }
      r = 1 - Math.exp(-a * a) / Math.sqrt(Math.PI) / f;
    }
    return x < 0 ? -r : r;
  }
}
