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

  /** The masked-LM logits (T, V) from an embedding output, each layer's head outputs passed to {@code edit}. */
  public double[][] logits(double[][] embeddings, ResultEdit edit) {
    double[][] x = embeddings;
    for (int l = 0; l < layers; l++) {
      x = layer(l, x, edit);
    }
    return ReferenceForward.decode(w,
        ReferenceForward.transform(x, w, "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
            act, eps, hidden, hidden),
        "cls.predictions.decoder.weight", "cls.predictions.decoder.bias", "cls.predictions.bias", vocab, hidden);
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
  private double[][] layer(int l, double[][] x, ResultEdit edit) {
    String p = "encoder.layer." + l + ".";
    double[][] q = linear(x, w.baseMatrix(p + "attention.self.query.weight", hidden, hidden),
        w.baseVector(p + "attention.self.query.bias", hidden)); // (T, d)
    double[][] k = linear(x, w.baseMatrix(p + "attention.self.key.weight", hidden, hidden),
        w.baseVector(p + "attention.self.key.bias", hidden));
    double[][] v = linear(x, w.baseMatrix(p + "attention.self.value.weight", hidden, hidden),
        w.baseVector(p + "attention.self.value.bias", hidden));
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
    return layerNorm(add(a, f), w.baseVector(p + "output.LayerNorm.weight", hidden),
        w.baseVector(p + "output.LayerNorm.bias", hidden), eps);
  }
}
