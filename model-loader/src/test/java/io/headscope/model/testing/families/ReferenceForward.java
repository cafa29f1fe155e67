package io.headscope.model.testing.families;

import static io.headscope.model.testing.families.ReferenceMath.activation;
import static io.headscope.model.testing.families.ReferenceMath.add;
import static io.headscope.model.testing.families.ReferenceMath.attention;
import static io.headscope.model.testing.families.ReferenceMath.conv1d;
import static io.headscope.model.testing.families.ReferenceMath.layerNorm;
import static io.headscope.model.testing.families.ReferenceMath.linear;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-Java, double-precision forward pass of BERT, RoBERTa, XLM-RoBERTa, DistilBERT, ELECTRA, ALBERT
 * and GPT-2, written from transformers' {@code modeling_<family>.py} (not from HeadScope's engine), reading
 * a folder's {@code config.json} and {@code model.safetensors} (F32) with its own reader. It is the
 * yardstick the engine's families are tested against, so it is written for being read, not for speed.
 *
 * <p>One input of token ids, no padding, token type ids all 0 where the family has them; no dropout
 * (eval mode).
 */
public final class ReferenceForward {
  /**
   * @param attention {@code [layer][head][query][key]}: the softmax probabilities (after GPT-2's causal
   *     mask); ALBERT lists {@code num_hidden_layers x inner_group_num} maps, as transformers does
   * @param lastHidden {@code [token][hidden]}: the last layer's output (GPT-2: after {@code ln_f})
   * @param logits {@code [token][vocab]}: the masked-LM / LM head's output, or null for a bare base model
   */
  public record Result(double[][][][] attention, double[][] lastHidden, double[][] logits) {}

  private ReferenceForward() {}

  /** Runs the model in {@code dir} on {@code ids}; {@code model_type} from config.json (absent: bert). */
  public static Result run(Path dir, long[] ids) {
    JsonNode config;
    try {
      config = new ObjectMapper().readTree(dir.resolve("config.json").toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String type = config.path("model_type").asText("bert");
    ReferenceWeights w = new ReferenceWeights(dir.resolve("model.safetensors"), FamilyConfigs.basePrefix(type));
    return switch (type) {
      case "bert", "roberta", "xlm-roberta", "electra" -> bertLike(type, config, w, ids);
      case "albert" -> albert(config, w, ids);
      case "distilbert" -> distilbert(config, w, ids);
      case "gpt2" -> gpt2(config, w, ids);
      default -> throw new IllegalArgumentException("model_type " + type + " is not in the reference");
    };
  }

  /** One post-LayerNorm encoder layer's weights: attention, its output LayerNorm, the FFN, its LayerNorm. */
  private record PostLnLayer(double[][] wq, double[] bq, double[][] wk, double[] bk, double[][] wv, double[] bv,
      double[][] wo, double[] bo, double[] ln1g, double[] ln1b, double[][] wIn, double[] bIn, double[][] wOut,
      double[] bOut, double[] ln2g, double[] ln2b) {}

  /**
   * BertLayer (and its "Copied from" twins), AlbertLayer and DistilBERT's TransformerBlock are the same
   * computation: {@code a = LN1(x + attn(x)); out = LN2(a + W_out act(W_in a))}.
   */
  private static double[][] postLnLayer(double[][] x, PostLnLayer p, int heads, double eps, String act,
      double[][][] pattern) {
    double[][] q = linear(x, p.wq, p.bq); // (T, H)
    double[][] k = linear(x, p.wk, p.bk);
    double[][] v = linear(x, p.wv, p.bv);
    double scale = 1 / Math.sqrt((double) x[0].length / heads);
    double[][] z = attention(q, k, v, heads, scale, false, pattern); // (T, H)
    double[][] a = layerNorm(add(x, linear(z, p.wo, p.bo)), p.ln1g, p.ln1b, eps);
    double[][] f = linear(activation(act, linear(a, p.wIn, p.bIn)), p.wOut, p.bOut);
    return layerNorm(add(a, f), p.ln2g, p.ln2b, eps);
  }

  /** BERT, RoBERTa, XLM-R, ELECTRA: BertEmbeddings (+ ELECTRA's embeddings_project), BertLayer x L, the MLM head. */
  private static Result bertLike(String type, JsonNode c, ReferenceWeights w, long[] ids) {
    int vocab = c.get("vocab_size").asInt();
    int hidden = c.get("hidden_size").asInt();
    int heads = c.get("num_attention_heads").asInt();
    int layers = c.get("num_hidden_layers").asInt();
    int inter = c.get("intermediate_size").asInt();
    int width = type.equals("electra") ? c.path("embedding_size").asInt(hidden) : hidden;
    double eps = c.path("layer_norm_eps").asDouble(1e-12);
    String act = c.path("hidden_act").asText("gelu");
    boolean roberta = type.equals("roberta") || type.equals("xlm-roberta");
    long[] positions = roberta ? robertaPositions(ids, c.path("pad_token_id").asInt(1)) : arange(ids.length);

    double[][] x = embeddings(c, w, ids, positions, width, eps);
    if (type.equals("electra") && w.hasBase("embeddings_project.weight")) {
      x = linear(x, w.baseMatrix("embeddings_project.weight", hidden, width), w.baseVector("embeddings_project.bias", hidden));
    }
    double[][][][] attn = new double[layers][heads][][];
    for (int l = 0; l < layers; l++) {
      String p = "encoder.layer." + l + ".";
      PostLnLayer lw = new PostLnLayer(
          w.baseMatrix(p + "attention.self.query.weight", hidden, hidden), w.baseVector(p + "attention.self.query.bias", hidden),
          w.baseMatrix(p + "attention.self.key.weight", hidden, hidden), w.baseVector(p + "attention.self.key.bias", hidden),
          w.baseMatrix(p + "attention.self.value.weight", hidden, hidden), w.baseVector(p + "attention.self.value.bias", hidden),
          w.baseMatrix(p + "attention.output.dense.weight", hidden, hidden), w.baseVector(p + "attention.output.dense.bias", hidden),
          w.baseVector(p + "attention.output.LayerNorm.weight", hidden), w.baseVector(p + "attention.output.LayerNorm.bias", hidden),
          w.baseMatrix(p + "intermediate.dense.weight", inter, hidden), w.baseVector(p + "intermediate.dense.bias", inter),
          w.baseMatrix(p + "output.dense.weight", hidden, inter), w.baseVector(p + "output.dense.bias", hidden),
          w.baseVector(p + "output.LayerNorm.weight", hidden), w.baseVector(p + "output.LayerNorm.bias", hidden));
      x = postLnLayer(x, lw, heads, eps, act, attn[l]);
    }
    double[][] logits = switch (type) {
      // BertOnlyMLMHead: transform (dense, ACT2FN[hidden_act], LayerNorm) then decoder (tied) + bias.
      case "bert" -> !w.hasHead("cls.predictions.bias") ? null : decode(w,
          transform(x, w, "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", act, eps, hidden, hidden),
          "cls.predictions.decoder.weight", "cls.predictions.decoder.bias", "cls.predictions.bias", vocab, hidden);
      // RobertaLMHead: dense, gelu (the exact one, whatever hidden_act says), layer_norm, decoder (tied) + bias.
      case "roberta", "xlm-roberta" -> !w.hasHead("lm_head.bias") ? null : decode(w,
          transform(x, w, "lm_head.dense", "lm_head.layer_norm", "gelu", eps, hidden, hidden),
          "lm_head.decoder.weight", "lm_head.decoder.bias", "lm_head.bias", vocab, hidden);
      // ElectraGeneratorPredictions: dense to embedding_size, get_activation("gelu"), LayerNorm; generator_lm_head (tied).
      case "electra" -> !w.hasHead("generator_predictions.dense.weight") ? null : decode(w,
          transform(x, w, "generator_predictions.dense", "generator_predictions.LayerNorm", "gelu", eps, width, hidden),
          "generator_lm_head.weight", "generator_lm_head.bias", "generator_lm_head.bias", vocab, width);
      default -> throw new IllegalStateException(type);
    };
    return new Result(attn, x, logits);
  }

  /**
   * AlbertForMaskedLM: embeddings of embedding_size, embedding_hidden_mapping_in, then for each of the
   * num_hidden_layers steps the layer group {@code int(i / (L / G))}, whose inner_group_num layers run in
   * turn; AlbertMLMHead (dense to embedding_size, ACT2FN[hidden_act], LayerNorm, decoder tied).
   */
  private static Result albert(JsonNode c, ReferenceWeights w, long[] ids) {
    int vocab = c.get("vocab_size").asInt();
    int hidden = c.get("hidden_size").asInt();
    int width = c.get("embedding_size").asInt();
    int heads = c.get("num_attention_heads").asInt();
    int layers = c.get("num_hidden_layers").asInt();
    int groups = c.path("num_hidden_groups").asInt(1);
    int inner = c.path("inner_group_num").asInt(1);
    int inter = c.get("intermediate_size").asInt();
    double eps = c.path("layer_norm_eps").asDouble(1e-12);
    String act = c.path("hidden_act").asText("gelu_new");

    double[][] x = embeddings(c, w, ids, arange(ids.length), width, eps);
    x = linear(x, w.baseMatrix("encoder.embedding_hidden_mapping_in.weight", hidden, width),
        w.baseVector("encoder.embedding_hidden_mapping_in.bias", hidden));
    List<double[][][]> maps = new ArrayList<>();
    for (int i = 0; i < layers; i++) {
      int group = (int) (i / ((double) layers / groups));
      for (int j = 0; j < inner; j++) {
        String p = "encoder.albert_layer_groups." + group + ".albert_layers." + j + ".";
        PostLnLayer lw = new PostLnLayer(
            w.baseMatrix(p + "attention.query.weight", hidden, hidden), w.baseVector(p + "attention.query.bias", hidden),
            w.baseMatrix(p + "attention.key.weight", hidden, hidden), w.baseVector(p + "attention.key.bias", hidden),
            w.baseMatrix(p + "attention.value.weight", hidden, hidden), w.baseVector(p + "attention.value.bias", hidden),
            w.baseMatrix(p + "attention.dense.weight", hidden, hidden), w.baseVector(p + "attention.dense.bias", hidden),
            w.baseVector(p + "attention.LayerNorm.weight", hidden), w.baseVector(p + "attention.LayerNorm.bias", hidden),
            w.baseMatrix(p + "ffn.weight", inter, hidden), w.baseVector(p + "ffn.bias", inter),
            w.baseMatrix(p + "ffn_output.weight", hidden, inter), w.baseVector(p + "ffn_output.bias", hidden),
            w.baseVector(p + "full_layer_layer_norm.weight", hidden), w.baseVector(p + "full_layer_layer_norm.bias", hidden));
        double[][][] pattern = new double[heads][][];
        x = postLnLayer(x, lw, heads, eps, act, pattern);
        maps.add(pattern);
      }
    }
    // AlbertMLMHead's LayerNorm takes config.layer_norm_eps in current transformers (older versions left
    // nn.LayerNorm's default 1e-5).
    double[][] logits = !w.hasHead("predictions.dense.weight") ? null : decode(w,
        transform(x, w, "predictions.dense", "predictions.LayerNorm", act, eps, width, hidden),
        "predictions.decoder.weight", "predictions.decoder.bias", "predictions.bias", vocab, width);
    return new Result(maps.toArray(new double[0][][][]), x, logits);
  }

  /**
   * DistilBertForMaskedLM: word + position embeddings (no token types), LayerNorm eps 1e-12 everywhere
   * (hard-coded in modeling_distilbert.py), TransformerBlock x n_layers, then vocab_transform,
   * get_activation(config.activation), vocab_layer_norm, vocab_projector (tied) + its bias.
   */
  private static Result distilbert(JsonNode c, ReferenceWeights w, long[] ids) {
    int vocab = c.get("vocab_size").asInt();
    int dim = c.get("dim").asInt();
    int heads = c.get("n_heads").asInt();
    int layers = c.get("n_layers").asInt();
    int hiddenDim = c.get("hidden_dim").asInt();
    int maxPos = c.get("max_position_embeddings").asInt();
    String act = c.path("activation").asText("gelu");
    double eps = 1e-12;

    double[][] word = w.baseMatrix("embeddings.word_embeddings.weight", vocab, dim);
    double[][] pos = w.baseMatrix("embeddings.position_embeddings.weight", maxPos, dim);
    double[][] x = new double[ids.length][dim];
    for (int t = 0; t < ids.length; t++) {
      for (int i = 0; i < dim; i++) {
        x[t][i] = word[(int) ids[t]][i] + pos[t][i];
      }
    }
    x = layerNorm(x, w.baseVector("embeddings.LayerNorm.weight", dim), w.baseVector("embeddings.LayerNorm.bias", dim), eps);
    double[][][][] attn = new double[layers][heads][][];
    for (int l = 0; l < layers; l++) {
      String p = "transformer.layer." + l + ".";
      PostLnLayer lw = new PostLnLayer(
          w.baseMatrix(p + "attention.q_lin.weight", dim, dim), w.baseVector(p + "attention.q_lin.bias", dim),
          w.baseMatrix(p + "attention.k_lin.weight", dim, dim), w.baseVector(p + "attention.k_lin.bias", dim),
          w.baseMatrix(p + "attention.v_lin.weight", dim, dim), w.baseVector(p + "attention.v_lin.bias", dim),
          w.baseMatrix(p + "attention.out_lin.weight", dim, dim), w.baseVector(p + "attention.out_lin.bias", dim),
          w.baseVector(p + "sa_layer_norm.weight", dim), w.baseVector(p + "sa_layer_norm.bias", dim),
          w.baseMatrix(p + "ffn.lin1.weight", hiddenDim, dim), w.baseVector(p + "ffn.lin1.bias", hiddenDim),
          w.baseMatrix(p + "ffn.lin2.weight", dim, hiddenDim), w.baseVector(p + "ffn.lin2.bias", dim),
          w.baseVector(p + "output_layer_norm.weight", dim), w.baseVector(p + "output_layer_norm.bias", dim));
      x = postLnLayer(x, lw, heads, eps, act, attn[l]);
    }
    double[][] logits = !w.hasHead("vocab_transform.weight") ? null : decode(w,
        transform(x, w, "vocab_transform", "vocab_layer_norm", act, eps, dim, dim),
        "vocab_projector.weight", "vocab_projector.bias", "vocab_projector.bias", vocab, dim);
    return new Result(attn, x, logits);
  }

  /**
   * GPT2LMHeadModel: wte + wpe, then pre-LN blocks {@code x += attn(ln_1(x)); x += mlp(ln_2(x))} with a
   * causal mask and Conv1D (in, out) weights, then ln_f; the LM head is lm_head.weight (tied to wte, so
   * wte when the file has none) without bias. A GPT2Model folder (architectures GPT2Model, no lm_head)
   * gives no logits.
   */
  private static Result gpt2(JsonNode c, ReferenceWeights w, long[] ids) {
    int vocab = c.get("vocab_size").asInt();
    int d = c.get("n_embd").asInt();
    int heads = c.get("n_head").asInt();
    int layers = c.get("n_layer").asInt();
    int positions = c.get("n_positions").asInt();
    int inner = c.path("n_inner").isNull() || c.path("n_inner").isMissingNode() ? 4 * d : c.get("n_inner").asInt();
    double eps = c.path("layer_norm_epsilon").asDouble(1e-5);
    String act = c.path("activation_function").asText("gelu_new");
    boolean scaleWeights = c.path("scale_attn_weights").asBoolean(true);
    boolean byLayer = c.path("scale_attn_by_inverse_layer_idx").asBoolean(false);

    double[][] wte = w.baseMatrix("wte.weight", vocab, d);
    double[][] wpe = w.baseMatrix("wpe.weight", positions, d);
    double[][] x = new double[ids.length][d];
    for (int t = 0; t < ids.length; t++) {
      for (int i = 0; i < d; i++) {
        x[t][i] = wte[(int) ids[t]][i] + wpe[t][i];
      }
    }
    double[][][][] attn = new double[layers][heads][][];
    for (int l = 0; l < layers; l++) {
      String p = "h." + l + ".";
      double[][] h = layerNorm(x, w.baseVector(p + "ln_1.weight", d), w.baseVector(p + "ln_1.bias", d), eps);
      double[][] qkv = conv1d(h, w.baseMatrix(p + "attn.c_attn.weight", d, 3 * d), w.baseVector(p + "attn.c_attn.bias", 3 * d));
      double[][] q = columns(qkv, 0, d); // (T, d): c_attn's output split in three along the last dim
      double[][] k = columns(qkv, d, d);
      double[][] v = columns(qkv, 2 * d, d);
      double scale = (scaleWeights ? 1 / Math.sqrt((double) d / heads) : 1) / (byLayer ? l + 1 : 1);
      double[][] z = attention(q, k, v, heads, scale, true, attn[l]);
      x = add(x, conv1d(z, w.baseMatrix(p + "attn.c_proj.weight", d, d), w.baseVector(p + "attn.c_proj.bias", d)));
      h = layerNorm(x, w.baseVector(p + "ln_2.weight", d), w.baseVector(p + "ln_2.bias", d), eps);
      double[][] f = activation(act, conv1d(h, w.baseMatrix(p + "mlp.c_fc.weight", d, inner), w.baseVector(p + "mlp.c_fc.bias", inner)));
      x = add(x, conv1d(f, w.baseMatrix(p + "mlp.c_proj.weight", inner, d), w.baseVector(p + "mlp.c_proj.bias", d)));
    }
    x = layerNorm(x, w.baseVector("ln_f.weight", d), w.baseVector("ln_f.bias", d), eps);
    boolean lmHead = w.hasHead("lm_head.weight") || c.path("architectures").toString().contains("GPT2LMHeadModel");
    double[][] logits = null;
    if (lmHead) {
      double[][] out = w.hasHead("lm_head.weight") ? w.matrix("lm_head.weight", vocab, d) : wte;
      logits = linear(x, out, null);
    }
    return new Result(attn, x, logits);
  }

  /** BertEmbeddings (shared by RoBERTa, ELECTRA, ALBERT): word + position + token type 0, then LayerNorm. */
  static double[][] embeddings(JsonNode c, ReferenceWeights w, long[] ids, long[] positions, int width,
      double eps) {
    int vocab = c.get("vocab_size").asInt();
    int maxPos = c.get("max_position_embeddings").asInt();
    int types = c.path("type_vocab_size").asInt(2);
    double[][] word = w.baseMatrix("embeddings.word_embeddings.weight", vocab, width);
    double[][] pos = w.baseMatrix("embeddings.position_embeddings.weight", maxPos, width);
    double[][] type = w.baseMatrix("embeddings.token_type_embeddings.weight", types, width);
    double[][] x = new double[ids.length][width];
    for (int t = 0; t < ids.length; t++) {
      for (int i = 0; i < width; i++) {
        x[t][i] = word[(int) ids[t]][i] + type[0][i] + pos[(int) positions[t]][i];
      }
    }
    return layerNorm(x, w.baseVector("embeddings.LayerNorm.weight", width), w.baseVector("embeddings.LayerNorm.bias", width), eps);
  }

  /**
   * RoBERTa's create_position_ids_from_input_ids: {@code mask = ids != pad; (cumsum(mask) * mask) + pad},
   * so real tokens count from {@code pad + 1} and padding tokens sit at {@code pad}.
   */
  static long[] robertaPositions(long[] ids, int pad) {
    long[] out = new long[ids.length];
    long count = 0;
    for (int t = 0; t < ids.length; t++) {
      int mask = ids[t] != pad ? 1 : 0;
      count += mask;
      out[t] = count * mask + pad;
    }
    return out;
  }

  private static long[] arange(int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    return out;
  }

  /** The heads' shared first half: dense (in -> out), activation, LayerNorm (with the given eps). */
  static double[][] transform(double[][] x, ReferenceWeights w, String dense, String norm, String act,
      double eps, int out, int in) {
    double[][] y = activation(act, linear(x, w.matrix(dense + ".weight", out, in), w.vector(dense + ".bias", out)));
    return layerNorm(y, w.vector(norm + ".weight", out), w.vector(norm + ".bias", out), eps);
  }

  /**
   * The decoder: its own weight if the file has it, else the word embeddings it is tied to; its bias under
   * the decoder's name or the head's {@code bias} parameter (the same Parameter in transformers).
   */
  static double[][] decode(ReferenceWeights w, double[][] x, String weight, String decoderBias, String headBias,
      int vocab, int width) {
    double[][] out = w.hasHead(weight) ? w.matrix(weight, vocab, width)
        : w.baseMatrix("embeddings.word_embeddings.weight", vocab, width);
    double[] b = w.hasHead(decoderBias) ? w.vector(decoderBias, vocab) : w.vector(headBias, vocab);
    return linear(x, out, b);
  }

  private static double[][] columns(double[][] x, int from, int n) {
    double[][] y = new double[x.length][n];
    for (int t = 0; t < x.length; t++) {
      System.arraycopy(x[t], from, y[t], 0, n);
    }
    return y;
  }
}
