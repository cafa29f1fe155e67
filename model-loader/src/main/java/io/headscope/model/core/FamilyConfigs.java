package io.headscope.model.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;

/**
 * Each family's {@code config.json}, as its Hugging Face config class writes it, read into
 * {@link BertConfig}'s fields. Defaults are those of the config classes, for keys a file leaves out.
 */
final class FamilyConfigs {
  private FamilyConfigs() {}

  /** BERT, RoBERTa, XLM-R, ELECTRA, ALBERT: BERT's keys, plus the embedding width and position offset. */
  static BertConfig bertLike(Family family, JsonNode root, Path file, List<String> labels) {
    ConfigFields.refuseUnmodelled(root, family, file);
    int hidden = BertConfig.requiredInt(root, "hidden_size", file);
    // ElectraConfig and AlbertConfig default embedding_size to 128; the others embed at hidden_size
    int embedding = switch (family) {
      case ELECTRA, ALBERT -> BertConfig.optionalInt(root, "embedding_size", 128, file);
      default -> hidden;
    };
    if (family == Family.ALBERT) {
      // every released ALBERT shares one layer among all; groups of layers would need a map per layer
      int groups = BertConfig.optionalInt(root, "num_hidden_groups", 1, file);
      int inner = BertConfig.optionalInt(root, "inner_group_num", 1, file);
      if (groups != 1 || inner != 1) {
        throw new HeadScopeException(file + ": num_hidden_groups " + groups + " and inner_group_num " + inner
            + "; HeadScope reads ALBERTs whose layers share one set of weights (1 and 1).");
      }
    }
    // RoBERTa's position ids start after the padding id (create_position_ids_from_input_ids)
    int offset = family == Family.ROBERTA || family == Family.XLM_ROBERTA
        ? BertConfig.optionalInt(root, "pad_token_id", 1, file) + 1
        : 0;
    String act = ConfigFields.activation(root, "hidden_act", family == Family.ALBERT ? "gelu_new" : "gelu", file);
    return new BertConfig(
        BertConfig.requiredInt(root, "vocab_size", file),
        hidden,
        BertConfig.requiredInt(root, "num_hidden_layers", file),
        BertConfig.requiredInt(root, "num_attention_heads", file),
        BertConfig.requiredInt(root, "intermediate_size", file),
        act,
        BertConfig.optionalInt(root, "max_position_embeddings", 512, file),
        BertConfig.optionalInt(root, "type_vocab_size", 2, file),
        ConfigFields.finiteNumber(root, "layer_norm_eps", 1e-12, file),
        labels, family, embedding, offset);
  }

  /** DistilBertConfig: dim, n_layers, n_heads, hidden_dim, activation; no token types; LayerNorm eps 1e-12. */
  static BertConfig distilBert(JsonNode root, Path file, List<String> labels) {
    ConfigFields.refuseUnmodelled(root, Family.DISTILBERT, file);
    int dim = BertConfig.optionalInt(root, "dim", 768, file);
    return new BertConfig(
        BertConfig.requiredInt(root, "vocab_size", file),
        dim,
        BertConfig.optionalInt(root, "n_layers", 6, file),
        BertConfig.optionalInt(root, "n_heads", 12, file),
        BertConfig.optionalInt(root, "hidden_dim", 4 * dim, file),
        ConfigFields.activation(root, "activation", "gelu", file),
        BertConfig.optionalInt(root, "max_position_embeddings", 512, file),
        0, 1e-12, labels, Family.DISTILBERT, dim, 0);
  }

  /** GPT2Config: n_embd, n_layer, n_head, n_inner (null: 4 n_embd), n_positions, layer_norm_epsilon. */
  static BertConfig gpt2(JsonNode root, Path file, List<String> labels) {
    ConfigFields.refuseUnmodelled(root, Family.GPT2, file);
    if (!root.path("scale_attn_weights").asBoolean(true)
        || root.path("scale_attn_by_inverse_layer_idx").asBoolean(false)) {
      throw new HeadScopeException(file + ": HeadScope reads GPT-2s that scale attention scores by "
          + "1/sqrt(head size) only (scale_attn_weights true, scale_attn_by_inverse_layer_idx false).");
    }
    int d = BertConfig.optionalInt(root, "n_embd", 768, file);
    return new BertConfig(
        BertConfig.requiredInt(root, "vocab_size", file),
        d,
        BertConfig.optionalInt(root, "n_layer", 12, file),
        BertConfig.optionalInt(root, "n_head", 12, file),
        BertConfig.optionalInt(root, "n_inner", 4 * d, file),
        ConfigFields.activation(root, "activation_function", "gelu_new", file),
        BertConfig.optionalInt(root, "n_positions", 1024, file),
        0, ConfigFields.finiteNumber(root, "layer_norm_epsilon", 1e-5, file), labels, Family.GPT2, d, 0);
  }
}
