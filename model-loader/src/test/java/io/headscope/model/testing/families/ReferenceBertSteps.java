package io.headscope.model.testing.families;

import static io.headscope.model.testing.families.ReferenceMath.activation;
import static io.headscope.model.testing.families.ReferenceMath.add;
import static io.headscope.model.testing.families.ReferenceMath.attention;
import static io.headscope.model.testing.families.ReferenceMath.layerNorm;
import static io.headscope.model.testing.families.ReferenceMath.linear;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * The double-precision BERT of {@link ReferenceForward} taken apart at the two places the gradient tests
 * need, so that a derivative can be taken by finite differences in float64 (where a step's rounding is
 * ~1e-16 of the metric, not float32's ~1e-7 that a central difference divides by its step): the embedding
 * output ({@code hook_embed}, after the embeddings' LayerNorm) given from outside, and each layer's per-head
 * outputs {@code result^h = z^h W_O^h} (TransformerLens's {@code hook_result}, without {@code b_O}) open to
 * an edit. BERT folders only (a masked-LM head under {@code cls.predictions}), one input, token types 0.
 */
public final class ReferenceBertSteps {
  /** Sees (and may change in place) one layer's per-head outputs, {@code [token][head][hidden]}. */
  public interface ResultEdit {
    void edit(int layer, double[][][] result);
  }

  /**
   * Sees (and may change in place) one point of one layer, as TransformerLens names them: {@code resid_pre}
   * (T, d) as the layer starts, {@code v} (T, H dh: head h in columns h dh .. h dh + dh - 1) after the value
   * projection, {@code mlp_out} (T, d) before the second residual add.
   */
  public interface PointEdit {
    void edit(String point, int layer, double[][] values);
  }

  private final JsonNode config;
  private final ReferenceWeights w;
  private final int vocab;
  private final int hidden;
  private final int heads;
  private final int layers;
  private final int inter;
  private final double eps;
  private final String act;

  public ReferenceBertSteps(Path dir) {
    try {
      config = new ObjectMapper().readTree(dir.resolve("config.json").toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!config.path("model_type").asText("bert").equals("bert")) {
      throw new IllegalArgumentException("ReferenceBertSteps reads BERT folders only");
    }
    w = new ReferenceWeights(dir.resolve("model.safetensors"), FamilyConfigs.basePrefix("bert"));
    vocab = config.get("vocab_size").asInt();
    hidden = config.get("hidden_size").asInt();
    heads = config.get("num_attention_heads").asInt();
    layers = config.get("num_hidden_layers").asInt();
    inter = config.get("intermediate_size").asInt();
    eps = config.path("layer_norm_eps").asDouble(1e-12);
    act = config.path("hidden_act").asText("gelu");
  }

  /** The embedding output of {@code ids}: word + position + type-0 embeddings, LayerNorm; (T, d). */
  public double[][] embeddings(long[] ids) {
    long[] positions = new long[ids.length];
    for (int t = 0; t < ids.length; t++) {
      positions[t] = t;
    }
    return ReferenceForward.embeddings(config, w, ids, positions, hidden, eps);
  }

  /**
   * The embedding output of a pair (or a single input, all types 0): word + position + token-type
   * embeddings, LayerNorm; (T, d).
   */
  public double[][] embeddings(long[] ids, long[] types) {
    int maxPos = config.get("max_position_embeddings").asInt();
    int typeCount = config.path("type_vocab_size").asInt(2);
    double[][] word = w.baseMatrix("embeddings.word_embeddings.weight", vocab, hidden);
    double[][] pos = w.baseMatrix("embeddings.position_embeddings.weight", maxPos, hidden);
    double[][] type = w.baseMatrix("embeddings.token_type_embeddings.weight", typeCount, hidden);
    double[][] x = new double[ids.length][hidden];
    for (int t = 0; t < ids.length; t++) {
      for (int i = 0; i < hidden; i++) {
        x[t][i] = word[(int) ids[t]][i] + type[(int) types[t]][i] + pos[t][i];
      }
    }
    return layerNorm(x, w.baseVector("embeddings.LayerNorm.weight", hidden),
        w.baseVector("embeddings.LayerNorm.bias", hidden), eps);
  }

  /** The masked-LM logits (T, V) from an embedding output, each layer's head outputs passed to {@code edit}. */
  public double[][] logits(double[][] embeddings, ResultEdit edit) {
    return logitsFrom(0, embeddings, edit);
  }

  /**
   * The masked-LM logits (T, V) from layer {@code first}'s input ({@code blocks.first.hook_resid_pre}; the
   * embedding output for 0), each later layer's head outputs passed to {@code edit}.
   */
  public double[][] logitsFrom(int first, double[][] input, ResultEdit edit) {
    return decode(stack(first, input, edit));
  }

  /** The masked-LM logits of the given rows only ({@code rows.length}, V): the others are not decoded. */
  public double[][] logitsFrom(int first, double[][] input, ResultEdit edit, int[] rows) {
    return logitsAt(first, input, edit, null, rows);
  }

  /** The masked-LM logits of the given rows, with edits of the head results and of the other points. */
  public double[][] logitsAt(int first, double[][] input, ResultEdit edit, PointEdit points, int[] rows) {
    double[][] x = stack(first, input, edit, points);
    double[][] picked = new double[rows.length][];
    for (int i = 0; i < rows.length; i++) {
      picked[i] = x[rows[i]];
    }
    return decode(picked);
  }

  /**
   * A sequence classifier's logits (labels): BertPooler ({@code tanh} of a dense layer on the first token's
   * last hidden state) and the {@code classifier} layer on it, from an embedding output.
   */
  public double[] classifierLogits(double[][] embeddings, ResultEdit edit) {
    double[][] x = stack(0, embeddings, edit);
    double[][] pooled = linear(new double[][] {x[0]}, w.baseMatrix("pooler.dense.weight", hidden, hidden),
        w.baseVector("pooler.dense.bias", hidden));
    for (int i = 0; i < hidden; i++) {
      pooled[0][i] = Math.tanh(pooled[0][i]);
    }
    int labels = config.get("id2label").size();
    return linear(pooled, w.matrix("classifier.weight", labels, hidden), w.vector("classifier.bias", labels))[0];
  }

  private double[][] stack(int first, double[][] input, ResultEdit edit) {
    return stack(first, input, edit, null);
  }

  private double[][] stack(int first, double[][] input, ResultEdit edit, PointEdit points) {
    double[][] x = input;
    for (int l = first; l < layers; l++) {
      if (points != null) {
        x = copy(x);
        points.edit("resid_pre", l, x);
      }
      x = layer(l, x, edit, points);
    }
    return x;
  }

  private static double[][] copy(double[][] x) {
    double[][] c = new double[x.length][];
    for (int t = 0; t < x.length; t++) {
      c[t] = x[t].clone();
    }
    return c;
  }

  private double[][] decode(double[][] x) {
    return ReferenceForward.decode(w,
        ReferenceForward.transform(x, w, "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
            act, eps, hidden, hidden),
        "cls.predictions.decoder.weight", "cls.predictions.decoder.bias", "cls.predictions.bias", vocab, hidden);
  }

  /**
   * The derivative of a float64 metric in the multiplier {@code m} of head {@code head} of layer
   * {@code layer} (its result {@code m z^h W_O^h}, as a head mask of mode zero scales it) at {@code m = 1},
   * and the scale of the float32 sum that computes that derivative: {@code d f/dm = sum_{t,o}
   * (d f / d result_{t,o}) result_{t,o}}, so the scale is {@code sum_{t,o} |d f / d result_{t,o}
   * result_{t,o}|}, each term the derivative along that one entry. The derivative by Richardson's central
   * differences at step 1e-3 (truncation O(h^4), rounding ~1e-16 |f| / h: both far below float32's bounds),
   * the scale's terms by plain central differences.
   *
   * @param metric the metric of the run with an edit applied to every layer's head results (the caller
   *     composes it with its own fixed edits, such as heads switched off)
   * @return {derivative, scale}
   */
  public static double[] headMultiplierDerivative(java.util.function.ToDoubleFunction<ResultEdit> metric,
      int layer, int head, int tokens, int hidden) {
    double d = richardson(e -> metric.applyAsDouble(scaling(layer, head, -1, -1, 1 + e)), 1e-3);
    double scale = 0;
    for (int t = 0; t < tokens; t++) {
      for (int o = 0; o < hidden; o++) {
        int tt = t;
        int oo = o;
        // a scale needs no O(h^4): one central difference (truncation ~1e-9 of it at h = 1e-4) halves the runs
        scale += Math.abs((metric.applyAsDouble(scaling(layer, head, tt, oo, 1 + 1e-4))
            - metric.applyAsDouble(scaling(layer, head, tt, oo, 1 - 1e-4))) / 2e-4);
      }
    }
    return new double[] {d, scale};
  }

  /** Head {@code head} of layer {@code layer} times {@code m}: all of its result, or entry (t, o) alone. */
  public static ResultEdit scaling(int layer, int head, int t, int o, double m) {
    return (l, result) -> {
      if (l != layer) {
        return;
      }
      for (int tt = 0; tt < result.length; tt++) {
        for (int oo = 0; oo < result[tt][head].length; oo++) {
          if (t < 0 || (tt == t && oo == o)) {
            result[tt][head][oo] *= m;
          }
        }
      }
    };
  }

  /** {@code (4 D(h/2) - D(h)) / 3} of the central differences {@code D}: the derivative at 0 up to O(h^4). */
  public static double richardson(java.util.function.DoubleUnaryOperator f, double h) {
    double d1 = (f.applyAsDouble(h) - f.applyAsDouble(-h)) / (2 * h);
    double d2 = (f.applyAsDouble(h / 2) - f.applyAsDouble(-h / 2)) / h;
    return (4 * d2 - d1) / 3;
  }

  /** {@code log softmax(logits[t])} in double. */
  public static double[] logSoftmax(double[] logits) {
    double max = Double.NEGATIVE_INFINITY;
    for (double z : logits) {
      max = Math.max(max, z);
    }
    double sum = 0;
    for (double z : logits) {
      sum += Math.exp(z - max);
    }
    double lse = max + Math.log(sum);
    double[] out = new double[logits.length];
    for (int v = 0; v < logits.length; v++) {
      out[v] = logits[v] - lse;
    }
    return out;
  }

  /** BertLayer with the attention output written as the sum of its heads: {@code sum_h z^h W_O^h + b_O}. */
  private double[][] layer(int l, double[][] x, ResultEdit edit, PointEdit points) {
    String p = "encoder.layer." + l + ".";
    double[][] q = linear(x, w.baseMatrix(p + "attention.self.query.weight", hidden, hidden),
        w.baseVector(p + "attention.self.query.bias", hidden)); // (T, d)
    double[][] k = linear(x, w.baseMatrix(p + "attention.self.key.weight", hidden, hidden),
        w.baseVector(p + "attention.self.key.bias", hidden));
    double[][] v = linear(x, w.baseMatrix(p + "attention.self.value.weight", hidden, hidden),
        w.baseVector(p + "attention.self.value.bias", hidden));
    if (points != null) {
      points.edit("v", l, v);
    }
    int dh = hidden / heads;
    double[][] z = attention(q, k, v, heads, 1 / Math.sqrt(dh), false, new double[heads][][]); // (T, H dh)
    double[][] wo = w.baseMatrix(p + "attention.output.dense.weight", hidden, hidden); // (out d, in H dh)
    double[] bo = w.baseVector(p + "attention.output.dense.bias", hidden);
    int n = x.length;
    double[][][] result = new double[n][heads][hidden]; // (T, H, d)
    for (int t = 0; t < n; t++) {
      for (int h = 0; h < heads; h++) {
        for (int o = 0; o < hidden; o++) {
          double s = 0;
          for (int c = 0; c < dh; c++) {
            s += z[t][h * dh + c] * wo[o][h * dh + c];
          }
          result[t][h][o] = s;
        }
      }
    }
    if (edit != null) {
      edit.edit(l, result);
    }
    double[][] attnOut = new double[n][hidden];
    for (int t = 0; t < n; t++) {
      for (int o = 0; o < hidden; o++) {
        double s = bo[o];
        for (int h = 0; h < heads; h++) {
          s += result[t][h][o];
        }
        attnOut[t][o] = s;
      }
    }
    double[][] a = layerNorm(add(x, attnOut), w.baseVector(p + "attention.output.LayerNorm.weight", hidden),
        w.baseVector(p + "attention.output.LayerNorm.bias", hidden), eps);
    double[][] f = linear(activation(act, linear(a, w.baseMatrix(p + "intermediate.dense.weight", inter, hidden),
        w.baseVector(p + "intermediate.dense.bias", inter))), w.baseMatrix(p + "output.dense.weight", hidden, inter),
        w.baseVector(p + "output.dense.bias", hidden));
    if (points != null) {
      points.edit("mlp_out", l, f);
    }
    return layerNorm(add(a, f), w.baseVector(p + "output.LayerNorm.weight", hidden),
        w.baseVector(p + "output.LayerNorm.bias", hidden), eps);
  }
}
