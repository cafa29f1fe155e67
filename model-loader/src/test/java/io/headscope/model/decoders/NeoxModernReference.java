package io.headscope.model.decoders;

import io.headscope.model.decoders.DecoderReference.V;
import io.headscope.model.testing.families.Erf;
import java.util.function.BiPredicate;

/**
 * GPT-NeoX's and ModernBERT's forward passes in double, written from the equations of transformers' {@code
 * modeling_gpt_neox.py} and {@code modeling_modernbert.py}, not from HeadScope's engine, with the standard
 * deviation of a float32 computation's error beside every value, propagated by {@link DecoderReference}'s rules
 * (its linear maps, sums, rotation and softmax), plus:
 *
 * <ul>
 *   <li>LayerNorm {@code y = g (x - m) / s + b}: to first order {@code dy_i = g_i / s (dx_i - mean(dx) - yhat_i
 *       mean(yhat dx))}, whose variance is at most {@code (g_i / s)^2 (e_i^2 + sum e^2 / n^2 + yhat_i^2 sum yhat^2
 *       e^2 / n^2)} for independent errors; its roundings: the mean ({@code sqrt(n + 1)} roundings of at most
 *       {@code sum |x| / n}), the subtraction, the variance ({@code sqrt(n + 3)} relative roundings), the square
 *       root, the division, the scale and the shift;
 *   <li>the exact GELU {@code x Phi(x)}: slope in [-0.17, 1.13], and at most six roundings of {@code |x|}.
 * </ul>
 *
 * <p>The fused per-head {@code query_key_value} of GPT-NeoX is split here as transformers does: its output viewed
 * as {@code [heads, 3 * head_size]}, head h's query, key and value at columns {@code 3 h dh}, {@code 3 h dh + dh},
 * {@code 3 h dh + 2 dh}; ModernBERT's {@code Wqkv} as {@code [3, heads, head_dim]}.
 */
final class NeoxModernReference {
  static final double U = DecoderReference.U;

  /** Maps and their error deviations {@code [layer][head][query][key]}, and the head's logits at one position. */
  record Result(double[][][][] attention, double[][][][] sigma, double[] logits) {}

  private NeoxModernReference() {}

  /** GPTNeoXForCausalLM: the next-token logits of position {@code at}. */
  static Result neox(TinyNeoxModern m, long[] ids, int at) {
    TinyNeoxModern.Spec s = m.spec;
    int t = ids.length;
    int d = s.hidden();
    int h = s.heads();
    int dh = s.headSize();
    int r = (int) (dh * s.rotaryPct()); // rotary_ndims = int(head_size * rotary_pct)
    double[] inv = DecoderReference.inverseFrequencies(s.theta(), r, null); // base^(-2i / rotary_ndims)
    V x = embed(m, "gpt_neox.embed_in.weight", ids);
    double[][][][] att = new double[s.layers()][h][][];
    double[][][][] bound = new double[s.layers()][h][][];
    for (int l = 0; l < s.layers(); l++) {
      String p = "gpt_neox.layers." + l + ".";
      V a = layerNorm(x, vec(m, p + "input_layernorm.weight"), vec(m, p + "input_layernorm.bias"), s.eps());
      V qkv = DecoderReference.linear(a, mat(m, p + "attention.query_key_value.weight"),
          vec(m, p + "attention.query_key_value.bias"));
      V z = new V(new double[t][d], new double[t][d]);
      for (int head = 0; head < h; head++) {
        V q = partialRotate(DecoderReference.slice(qkv, 3 * head * dh, dh), r, inv);
        V k = partialRotate(DecoderReference.slice(qkv, 3 * head * dh + dh, dh), r, inv);
        V v = DecoderReference.slice(qkv, 3 * head * dh + 2 * dh, dh);
        attend(q, k, v, (i, j) -> j <= i, z, head, att[l], bound[l]);
      }
      V o = DecoderReference.linear(z, mat(m, p + "attention.dense.weight"), vec(m, p + "attention.dense.bias"));
      if (s.parallel()) {
        // x = x + attn(ln1(x)) + mlp(ln2(x)), summed as transformers writes it: mlp_output + attn_output + hidden_states
        V mlp = neoxMlp(m, p, layerNorm(x, vec(m, p + "post_attention_layernorm.weight"),
            vec(m, p + "post_attention_layernorm.bias"), s.eps()));
        x = DecoderReference.add(DecoderReference.add(mlp, o), x);
      } else {
        V mid = DecoderReference.add(o, x);
        V mlp = neoxMlp(m, p, layerNorm(mid, vec(m, p + "post_attention_layernorm.weight"),
            vec(m, p + "post_attention_layernorm.bias"), s.eps()));
        x = DecoderReference.add(mlp, mid);
      }
    }
    V fin = layerNorm(x, vec(m, "gpt_neox.final_layer_norm.weight"), vec(m, "gpt_neox.final_layer_norm.bias"), s.eps());
    // tied (tie_word_embeddings true): transformers' tie_weights makes embed_out the input embeddings, whatever the
    // file stores under embed_out
    return new Result(att, bound, logits(mat(m, m.tied ? "gpt_neox.embed_in.weight" : "embed_out.weight"), null,
        fin.v()[at]));
  }

  /** ModernBertForMaskedLM: the masked-LM logits of position {@code at}. */
  static Result modernBert(TinyNeoxModern m, long[] ids, int at) {
    TinyNeoxModern.Spec s = m.spec;
    int t = ids.length;
    int d = s.hidden();
    int h = s.heads();
    int dh = s.headSize();
    int f = s.intermediate();
    double[] global = DecoderReference.inverseFrequencies(s.theta(), dh, null);
    double[] local = DecoderReference.inverseFrequencies(s.localTheta(), dh, null);
    // ModernBertEmbeddings: norm(tok_embeddings(ids)), the LayerNorm without a bias (norm_bias false)
    V x = layerNorm(embed(m, "model.embeddings.tok_embeddings.weight", ids), vec(m, "model.embeddings.norm.weight"),
        null, s.eps());
    double[][][][] att = new double[s.layers()][h][][];
    double[][][][] bound = new double[s.layers()][h][][];
    for (int l = 0; l < s.layers(); l++) {
      String p = "model.layers." + l + ".";
      // ModernBertAttention: layer_id % global_attn_every_n_layers != 0 is local, with local_rope_theta and a
      // window of local_attention // 2 on either side (the sliding_window_mask: |i - j| <= local_attention // 2)
      boolean isLocal = l % s.every() != 0;
      int reach = s.window() / 2;
      BiPredicate<Integer, Integer> visible = isLocal ? (i, j) -> Math.abs(i - j) <= reach : (i, j) -> true;
      double[] inv = isLocal ? local : global;
      V a = l == 0 ? x : layerNorm(x, vec(m, p + "attn_norm.weight"), null, s.eps()); // layer 0: nn.Identity
      V qkv = DecoderReference.linear(a, mat(m, p + "attn.Wqkv.weight"), null);
      V z = new V(new double[t][d], new double[t][d]);
      for (int head = 0; head < h; head++) {
        V q = DecoderReference.rotate(DecoderReference.slice(qkv, head * dh, dh), inv);
        V k = DecoderReference.rotate(DecoderReference.slice(qkv, d + head * dh, dh), inv);
        V v = DecoderReference.slice(qkv, 2 * d + head * dh, dh);
        attend(q, k, v, visible, z, head, att[l], bound[l]);
      }
      x = DecoderReference.add(x, DecoderReference.linear(z, mat(m, p + "attn.Wo.weight"), null));
      V b = layerNorm(x, vec(m, p + "mlp_norm.weight"), null, s.eps());
      V wi = DecoderReference.linear(b, mat(m, p + "mlp.Wi.weight"), null);
      // ModernBertMLP: input, gate = Wi(x).chunk(2, dim=-1); Wo(act(input) * gate)
      V prod = geluTimes(DecoderReference.slice(wi, 0, f), DecoderReference.slice(wi, f, f));
      x = DecoderReference.add(x, DecoderReference.linear(prod, mat(m, p + "mlp.Wo.weight"), null));
    }
    V fin = layerNorm(x, vec(m, "model.final_norm.weight"), null, s.eps());
    // ModernBertPredictionHead: norm(act(dense(x))), dense without bias (classifier_bias false); then the decoder,
    // tied to the token embeddings, with its bias
    V dense = gelu(DecoderReference.linear(fin, mat(m, "head.dense.weight"), null));
    V head = layerNorm(dense, vec(m, "head.norm.weight"), null, s.eps());
    return new Result(att, bound, logits(mat(m, "model.embeddings.tok_embeddings.weight"), vec(m, "decoder.bias"),
        head.v()[at]));
  }

  private static V neoxMlp(TinyNeoxModern m, String p, V in) {
    V pre = DecoderReference.linear(in, mat(m, p + "mlp.dense_h_to_4h.weight"), vec(m, p + "mlp.dense_h_to_4h.bias"));
    return DecoderReference.linear(gelu(pre), mat(m, p + "mlp.dense_4h_to_h.weight"), vec(m, p + "mlp.dense_4h_to_h.bias"));
  }

  private static V embed(TinyNeoxModern m, String name, long[] ids) {
    double[][] emb = mat(m, name);
    double[][] x = new double[ids.length][];
    for (int i = 0; i < ids.length; i++) {
      x[i] = emb[(int) ids[i]].clone(); // exact: the widened weights are the stored values
    }
    return V.exact(x);
  }

  private static double[] logits(double[][] unembed, double[] bias, double[] row) {
    double[] out = new double[unembed.length];
    for (int r = 0; r < unembed.length; r++) {
      out[r] = bias == null ? 0 : bias[r];
      for (int c = 0; c < row.length; c++) {
        out[r] += unembed[r][c] * row[c];
      }
    }
    return out;
  }

  /**
   * Softmax attention of one head over the keys {@code visible(i, j)} (the others get probability 0), scaled by
   * {@code 1 / sqrt(dh)}: its map and error deviations into {@code att[head]}, {@code bound[head]}, and its output
   * into {@code z}'s columns {@code head * dh ..}. The rules are {@link DecoderReference}'s.
   */
  private static void attend(V q, V k, V v, BiPredicate<Integer, Integer> visible, V z, int head, double[][][] att,
      double[][][] bound) {
    int t = q.v().length;
    int dh = q.v()[0].length;
    double[][] pm = new double[t][t];
    double[][] pe = new double[t][t];
    for (int i = 0; i < t; i++) {
      double[] sc = new double[t];
      double[] se = new double[t];
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < t; j++) {
        if (!visible.test(i, j)) {
          continue;
        }
        double dot = 0;
        double mag = 0;
        double var = 0;
        for (int c = 0; c < dh; c++) {
          double qv = q.v()[i][c];
          double kv = k.v()[j][c];
          dot += qv * kv;
          mag += Math.abs(qv * kv);
          var += qv * qv * k.e()[j][c] * k.e()[j][c] + kv * kv * q.e()[i][c] * q.e()[i][c];
        }
        double root = Math.sqrt(dh);
        sc[j] = dot / root;
        se[j] = (Math.sqrt(var) + Math.sqrt(dh + 2) * U * mag) / root;
        max = Math.max(max, sc[j]);
      }
      double sum = 0;
      for (int j = 0; j < t; j++) {
        if (visible.test(i, j)) {
          sum += Math.exp(sc[j] - max);
          se[j] = Math.hypot(se[j], U * Math.abs(sc[j] - max));
        }
      }
      double spread = 0;
      for (int j = 0; j < t; j++) {
        if (visible.test(i, j)) {
          pm[i][j] = Math.exp(sc[j] - max) / sum;
          spread += pm[i][j] * pm[i][j] * se[j] * se[j];
        }
      }
      for (int j = 0; j < t; j++) {
        if (visible.test(i, j)) {
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
          val += pm[i][j] * v.v()[j][c];
          err += pe[i][j] * pe[i][j] * v.v()[j][c] * v.v()[j][c] + pm[i][j] * pm[i][j] * v.e()[j][c] * v.e()[j][c];
          mag += pm[i][j] * Math.abs(v.v()[j][c]);
        }
        z.v()[i][head * dh + c] = val;
        z.e()[i][head * dh + c] = Math.sqrt(err) + Math.sqrt(t) * U * mag;
      }
    }
    att[head] = pm;
    bound[head] = pe;
  }

  /** The first {@code r} dimensions turned ({@code rotate_half} over them), the rest passed: GPT-NeoX's partial rotary. */
  private static V partialRotate(V x, int r, double[] inv) {
    int t = x.v().length;
    int dh = x.v()[0].length;
    V turned = DecoderReference.rotate(DecoderReference.slice(x, 0, r), inv);
    double[][] y = new double[t][dh];
    double[][] e = new double[t][dh];
    for (int i = 0; i < t; i++) {
      System.arraycopy(turned.v()[i], 0, y[i], 0, r);
      System.arraycopy(turned.e()[i], 0, e[i], 0, r);
      System.arraycopy(x.v()[i], r, y[i], r, dh - r);
      System.arraycopy(x.e()[i], r, e[i], r, dh - r);
    }
    return new V(y, e);
  }

  /** {@code nn.LayerNorm}: {@code g (x - mean) / sqrt(var + eps) + b} (biased variance), {@code b} null without a bias. */
  static V layerNorm(V x, double[] g, double[] b, double eps) {
    int t = x.v().length;
    int n = x.v()[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      double mean = 0;
      double abs = 0;
      for (int c = 0; c < n; c++) {
        mean += x.v()[i][c];
        abs += Math.abs(x.v()[i][c]);
      }
      mean /= n;
      double var = 0;
      for (int c = 0; c < n; c++) {
        var += (x.v()[i][c] - mean) * (x.v()[i][c] - mean);
      }
      var /= n;
      double sd = Math.sqrt(var + eps);
      double[] hat = new double[n];
      double sumE2 = 0;
      double sumHatE2 = 0;
      for (int c = 0; c < n; c++) {
        hat[c] = (x.v()[i][c] - mean) / sd;
        sumE2 += x.e()[i][c] * x.e()[i][c];
        sumHatE2 += hat[c] * hat[c] * x.e()[i][c] * x.e()[i][c];
      }
      double meanRound = Math.sqrt(n + 1) * U * abs / n;
      // var's relative rounding (squares, n sums, the division, + eps), halved by the root, which rounds once
      double relSd = Math.hypot(Math.sqrt(n + 3) * U / 2, U);
      for (int c = 0; c < n; c++) {
        double centred = x.v()[i][c] - mean;
        double prop = x.e()[i][c] * x.e()[i][c] + sumE2 / ((double) n * n) + hat[c] * hat[c] * sumHatE2 / ((double) n * n);
        double round = meanRound * meanRound + U * U * centred * centred;
        double scaled = g[c] * hat[c];
        y[i][c] = scaled + (b == null ? 0 : b[c]);
        e[i][c] = Math.sqrt(g[c] * g[c] / (sd * sd) * (prop + round) + scaled * scaled * (relSd * relSd + 2 * U * U)
            + U * U * y[i][c] * y[i][c]);
      }
    }
    return new V(y, e);
  }

  private static double gelu(double x) {
    return x * 0.5 * (1 + Erf.erf(x / Math.sqrt(2)));
  }

  /** The exact GELU on every value. */
  private static V gelu(V x) {
    int t = x.v().length;
    int n = x.v()[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      for (int c = 0; c < n; c++) {
        double v = x.v()[i][c];
        y[i][c] = gelu(v);
        e[i][c] = Math.hypot(1.13 * x.e()[i][c], 6 * U * Math.abs(v));
      }
    }
    return new V(y, e);
  }

  /** ModernBERT's GeGLU product {@code gelu(input) * gate} with the exact GELU. */
  private static V geluTimes(V input, V gate) {
    V act = gelu(input);
    int t = act.v().length;
    int n = act.v()[0].length;
    double[][] y = new double[t][n];
    double[][] e = new double[t][n];
    for (int i = 0; i < t; i++) {
      for (int c = 0; c < n; c++) {
        double a = act.v()[i][c];
        double g = gate.v()[i][c];
        y[i][c] = a * g;
        e[i][c] = Math.sqrt(a * a * gate.e()[i][c] * gate.e()[i][c] + g * g * act.e()[i][c] * act.e()[i][c]
            + U * U * y[i][c] * y[i][c]);
      }
    }
    return new V(y, e);
  }

  private static double[][] mat(TinyNeoxModern m, String name) {
    return m.weights.get(name).matrix();
  }

  private static double[] vec(TinyNeoxModern m, String name) {
    TinyDecoder.Tensor t = m.weights.get(name);
    return t == null ? null : t.values();
  }
}
