package io.headscope.model.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code config.json} of GPT-NeoX (GPTNeoXConfig: Pythia) and ModernBERT (ModernBertConfig) read into
 * {@link BertConfig}'s fields and their {@link Parts}, with the config classes' defaults for keys a file
 * leaves out. A variant the engine does not run (a RoPE scaling, a biased gated MLP) is refused in one line.
 */
final class NeoxModernConfigs {
  private NeoxModernConfigs() {}

  /**
   * GPTNeoXConfig: LayerNorms with biases before each sublayer and a final one, the parallel residual ({@code
   * use_parallel_residual}, default true), rotary positions over {@code int(head_size * rotary_pct)} dimensions
   * ({@code rotary_pct} 0.25, {@code rotary_emb_base} 10000), biased projections ({@code attention_bias} true),
   * a GELU MLP with biases, an untied {@code embed_out} ({@code tie_word_embeddings} false).
   */
  static BertConfig gptNeox(JsonNode root, Path file, List<String> labels) {
    int hidden = BertConfig.requiredInt(root, "hidden_size", file);
    int heads = BertConfig.requiredInt(root, "num_attention_heads", file);
    JsonNode params = root.path("rope_parameters"); // transformers 5 writes rope_theta and partial_rotary_factor here
    JsonNode scaling = root.get("rope_scaling");
    String type = params.path("rope_type").asText("default");
    if (scaling != null && !scaling.isNull() || !type.equals("default")) {
      throw new HeadScopeException(file + ": a GPT-NeoX with rope_scaling; HeadScope runs GPT-NeoX rotary positions "
          + "without scaling (as Pythia has them).");
    }
    double base = number(root, "rotary_emb_base", number(root, "rope_theta", number(params, "rope_theta", 10000, file),
        file), file);
    double pct = number(root, "rotary_pct", number(root, "partial_rotary_factor",
        number(params, "partial_rotary_factor", 0.25, file), file), file);
    Parts.Rotary rotary = Parts.Rotary.partial(base, pct);
    if (heads > 0 && hidden % heads == 0 && (rotary.dims(hidden / heads) < 2 || rotary.dims(hidden / heads) % 2 != 0)) {
      throw new HeadScopeException(file + ": rotary_pct " + pct + " turns " + rotary.dims(hidden / heads)
          + " dimensions of each head; rotary positions turn pairs, so HeadScope needs an even number of at least 2.");
    }
    boolean bias = root.path("attention_bias").asBoolean(true);
    boolean tied = root.path("tie_word_embeddings").asBoolean(false);
    Parts parts = new Parts(Parts.Norm.LAYER_NORM, Parts.NormPlace.PRE, Parts.Position.ROTARY, rotary, heads, bias, bias,
        Parts.Mask.CAUSAL, 0, Parts.Mlp.GELU, tied ? Parts.Head.TIED : Parts.Head.UNTIED, 1,
        root.path("use_parallel_residual").asBoolean(true) ? Parts.Residual.PARALLEL : Parts.Residual.SEQUENTIAL, null);
    return new BertConfig(
        BertConfig.requiredInt(root, "vocab_size", file), hidden,
        BertConfig.requiredInt(root, "num_hidden_layers", file), heads,
        BertConfig.requiredInt(root, "intermediate_size", file),
        ConfigFields.activation(root, "hidden_act", "gelu", file),
        BertConfig.optionalInt(root, "max_position_embeddings", 2048, file),
        0, ConfigFields.finiteNumber(root, "layer_norm_eps", 1e-5, file), labels, Family.GPT_NEOX, hidden, 0, parts);
  }

  /**
   * ModernBertConfig: LayerNorms without biases ({@code norm_bias} false) before each sublayer (none before
   * the first layer's attention) and after the embeddings and the last layer; rotary positions with {@code
   * global_rope_theta} (160000) in every {@code global_attn_every_n_layers}-th layer (3) and {@code
   * local_rope_theta} (10000) in the others, which see the keys within {@code local_attention / 2} (128 / 2)
   * of the query on either side; a GeGLU MLP ({@code Wi} fused: the activated half first) without biases; the
   * masked-LM head ({@code head.dense} without bias, {@code classifier_activation}, {@code head.norm}) and a
   * tied {@code decoder} with a bias ({@code decoder_bias} true).
   */
  static BertConfig modernBert(JsonNode root, Path file, List<String> labels) {
    int hidden = BertConfig.requiredInt(root, "hidden_size", file);
    int heads = BertConfig.requiredInt(root, "num_attention_heads", file);
    if (root.path("mlp_bias").asBoolean(false)) {
      throw new HeadScopeException(file + ": mlp_bias is true; HeadScope runs ModernBERT's GeGLU without biases "
          + "(as every released ModernBERT has it).");
    }
    if (root.path("classifier_bias").asBoolean(false)) {
      throw new HeadScopeException(file + ": classifier_bias is true; HeadScope runs ModernBERT's head.dense without "
          + "a bias (as every released ModernBERT has it).");
    }
    String act = ConfigFields.activation(root, "hidden_activation", "gelu", file);
    String headAct = ConfigFields.activation(root, "classifier_activation", "gelu", file);
    if (!BertConfig.Gelu.of(act).equals(BertConfig.Gelu.of(headAct))) {
      throw new HeadScopeException(file + ": classifier_activation \"" + headAct + "\" differs from hidden_activation \""
          + act + "\"; HeadScope runs ModernBERTs whose head uses the MLP's GELU.");
    }
    // the thetas as hub configs write them (global_rope_theta, local_rope_theta), or as transformers 5 saves them
    // (rope_parameters by layer type); without either, ModernBertConfig's defaults 160000 and 10000
    JsonNode params = root.path("rope_parameters");
    double global = number(root, "global_rope_theta", number(params.path("full_attention"), "rope_theta", 160000, file),
        file);
    double local = number(root, "local_rope_theta", number(params.path("sliding_attention"), "rope_theta", 10000, file),
        file);
    int layers = BertConfig.requiredInt(root, "num_hidden_layers", file);
    int every = root.has("layer_types") ? periodOf(root.get("layer_types"), layers, file)
        : BertConfig.optionalInt(root, "global_attn_every_n_layers", 3, file);
    int window = BertConfig.optionalInt(root, "local_attention", 128, file);
    if (window < 2) {
      throw new HeadScopeException(file + ": local_attention must be at least 2, got " + window + ".");
    }
    boolean attentionBias = root.path("attention_bias").asBoolean(false);
    Parts parts = new Parts(root.path("norm_bias").asBoolean(false) ? Parts.Norm.LAYER_NORM
        : Parts.Norm.LAYER_NORM_NO_BIAS, Parts.NormPlace.PRE, Parts.Position.ROTARY, Parts.Rotary.plain(global), heads,
        attentionBias, attentionBias, Parts.Mask.BIDIRECTIONAL, window, Parts.Mlp.GATED_GELU, Parts.Head.MASKED_LM, 1,
        Parts.Residual.SEQUENTIAL, new Parts.LocalLayers(every, Parts.Rotary.plain(local)));
    return new BertConfig(
        BertConfig.requiredInt(root, "vocab_size", file), hidden,
        BertConfig.requiredInt(root, "num_hidden_layers", file), heads,
        BertConfig.requiredInt(root, "intermediate_size", file),
        act, BertConfig.optionalInt(root, "max_position_embeddings", 8192, file),
        0, ConfigFields.finiteNumber(root, "norm_eps", 1e-5, file), labels, Family.MODERNBERT, hidden, 0, parts);
  }

  /**
   * The n of a {@code layer_types} list (transformers 5: {@code "full_attention"} where {@code l % n == 0}, else
   * {@code "sliding_attention"}); another pattern is refused in one line.
   */
  private static int periodOf(JsonNode types, int layers, Path file) {
    int every = layers;
    for (int l = 1; l < types.size(); l++) {
      if (types.get(l).asText().equals("full_attention")) {
        every = l;
        break;
      }
    }
    boolean periodic = types.isArray() && types.size() == layers;
    for (int l = 0; periodic && l < layers; l++) {
      periodic = types.get(l).asText().equals(l % every == 0 ? "full_attention" : "sliding_attention");
    }
    if (!periodic) {
      throw new HeadScopeException(file + ": layer_types is not a full_attention layer every n layers from the first, "
          + "the others sliding_attention; HeadScope runs ModernBERTs laid out as global_attn_every_n_layers says.");
    }
    return every;
  }

  private static double number(JsonNode node, String key, double absent, Path file) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return absent;
    }
    if (!v.isNumber() || !Double.isFinite(v.asDouble())) {
      throw new HeadScopeException(file + ": \"" + key + "\" must be a finite number, got " + v + ".");
    }
    return v.asDouble();
  }
}
