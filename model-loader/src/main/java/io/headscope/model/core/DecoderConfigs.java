package io.headscope.model.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code config.json} of the rotary decoders (LlamaConfig, Qwen2Config, MistralConfig) read into
 * {@link BertConfig}'s fields and their {@link Parts}. Defaults are those of the config classes for keys a
 * file leaves out; the five sizes are required (every hub config writes them). A variant the engine
 * does not run (another RoPE scaling, Qwen2's per-layer sliding windows) is refused in one line rather than run
 * wrong.
 */
final class DecoderConfigs {
  private DecoderConfigs() {}

  static BertConfig read(Family family, JsonNode root, Path file, List<String> labels) {
    int hidden = BertConfig.requiredInt(root, "hidden_size", file);
    int heads = BertConfig.requiredInt(root, "num_attention_heads", file);
    int kvHeads = BertConfig.optionalInt(root, "num_key_value_heads", heads, file);
    // head_dim (LlamaConfig, MistralConfig, GemmaConfig: heads * head_dim need not be hidden_size; Gemma 7B has
    // 16 heads of 256 over 3072): q_proj is (heads * head_dim, hidden), o_proj (hidden, heads * head_dim), and the
    // scores are scaled by head_dim^-0.5, as the attention modules have it
    int headDim = heads > 0 && hidden % heads == 0 ? BertConfig.optionalInt(root, "head_dim", hidden / heads, file) : 0;
    if (headDim < 0 || headDim > 65_536) {
      throw new HeadScopeException(file + ": head_dim must be a positive number of dimensions, got " + headDim + ".");
    }
    // Qwen2Config defaults tie_word_embeddings to false like LlamaConfig (Qwen2.5's small models set it true);
    // GemmaConfig defaults it to true
    boolean gemma = family == Family.GEMMA;
    boolean tied = root.path("tie_word_embeddings").asBoolean(gemma);
    boolean qkvBias = family == Family.QWEN2 || root.path("attention_bias").asBoolean(false);
    boolean outBias = family != Family.QWEN2 && root.path("attention_bias").asBoolean(false);
    if (root.path("mlp_bias").asBoolean(false)) {
      throw new HeadScopeException(file + ": mlp_bias is true; HeadScope runs " + family.displayName
          + " MLPs without biases.");
    }
    int window = switch (family) {
      case MISTRAL -> root.hasNonNull("sliding_window") ? BertConfig.optionalInt(root, "sliding_window", 0, file) : 0;
      case QWEN2 -> {
        if (root.path("use_sliding_window").asBoolean(false)) {
          throw new HeadScopeException(file + ": use_sliding_window is true; HeadScope runs Qwen2 models with full "
              + "attention in every layer (as every released Qwen2 and Qwen2.5 is configured).");
        }
        yield 0;
      }
      default -> 0;
    };
    if (window < 0) {
      throw new HeadScopeException(file + ": sliding_window must be positive, got " + window + ".");
    }
    // Gemma (GemmaModel): embeddings times sqrt(hidden_size) rounded to the computing dtype (float32 here),
    // RMSNorm scaled by 1 + w, and GeGLU with hidden_activation (transformers' default: the tanh GELU)
    Parts parts = new Parts(gemma ? Parts.Norm.RMS_NORM_UNIT_OFFSET : Parts.Norm.RMS_NORM, Parts.NormPlace.PRE,
        Parts.Position.ROTARY, rotary(root, file), kvHeads, qkvBias, outBias, Parts.Mask.CAUSAL, window,
        gemma ? Parts.Mlp.GATED_GELU : Parts.Mlp.GATED_SILU, tied ? Parts.Head.TIED : Parts.Head.UNTIED,
        gemma ? (float) Math.sqrt(hidden) : 1).withHeadDim(headDim == hidden / Math.max(1, heads) ? 0 : headDim);
    int defaultPositions = switch (family) {
      case QWEN2 -> 32768;
      case MISTRAL -> 4096 * 32;
      case GEMMA -> 8192;
      default -> 2048;
    };
    String act = gemma ? (root.hasNonNull("hidden_activation") ? root.get("hidden_activation").asText() : "gelu_pytorch_tanh") : root.path("hidden_act").asText("silu");
    return new BertConfig(
        BertConfig.requiredInt(root, "vocab_size", file),
        hidden,
        BertConfig.requiredInt(root, "num_hidden_layers", file),
        heads,
        BertConfig.requiredInt(root, "intermediate_size", file),
        act,
        BertConfig.optionalInt(root, "max_position_embeddings", defaultPositions, file),
        0, root.path("rms_norm_eps").asDouble(1e-6), labels, family, hidden, 0, parts);
  }

  /**
   * {@code rope_theta} and {@code rope_scaling} as hub configs write them, or {@code rope_parameters} as
   * transformers 5 saves them. Only Llama 3's scaling is run; linear, dynamic NTK, YaRN and LongRoPE
   * are refused.
   */
  static Parts.Rotary rotary(JsonNode root, Path file) {
    JsonNode params = root.path("rope_parameters");
    JsonNode scaling = root.hasNonNull("rope_scaling") ? root.get("rope_scaling") : params;
    double theta = root.hasNonNull("rope_theta") ? root.get("rope_theta").asDouble()
        : params.path("rope_theta").asDouble(10000.0);
    if (scaling == null || scaling.isMissingNode() || scaling.isNull()) {
      return Parts.Rotary.plain(theta);
    }
    String type = scaling.hasNonNull("rope_type") ? scaling.get("rope_type").asText()
        : scaling.path("type").asText("default");
    return switch (type) {
      case "default" -> Parts.Rotary.plain(theta);
      case "llama3" -> new Parts.Rotary(theta, number(scaling, "factor", file), number(scaling, "low_freq_factor", file),
          number(scaling, "high_freq_factor", file),
          BertConfig.requiredInt(scaling, "original_max_position_embeddings", file));
      default -> throw new HeadScopeException(file + ": rope_scaling of type \"" + type + "\"; HeadScope runs rotary "
          + "positions without scaling or with Llama 3's (llama3).");
    };
  }

  private static double number(JsonNode node, String key, Path file) {
    JsonNode v = node.get(key);
    if (v == null || !v.isNumber()) {
      throw new HeadScopeException(file + ": rope_scaling has no number \"" + key + "\".");
    }
    return v.asDouble();
  }
}
