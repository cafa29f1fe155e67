package io.headscope.model.testing.families;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code config.json} of each family, with the keys and spellings its transformers config class
 * serializes (BertConfig, RobertaConfig, XLMRobertaConfig, DistilBertConfig, ElectraConfig, AlbertConfig,
 * GPT2Config), filled with the values a tiny model needs and the family's usual defaults otherwise.
 */
final class FamilyConfigs {
  private FamilyConfigs() {}

  static ObjectNode of(String modelType, TinyFamilyCheckpoint.Shape s) {
    ObjectNode c = JsonNodeFactory.instance.objectNode();
    c.putArray("architectures").add(maskedLmArchitecture(modelType));
    c.put("model_type", modelType);
    switch (modelType) {
      case "bert" -> bertLike(c, s, s.positions(), 2, 1e-12, 0).put("hidden_act", "gelu");
      case "roberta", "xlm-roberta" -> {
        // roberta-base's own values: pad 1, bos 0, eos 2, one token type, eps 1e-5, and two extra positions
        // because create_position_ids_from_input_ids starts counting at padding_idx + 1.
        bertLike(c, s, s.positions() + 2, 1, 1e-5, 1).put("hidden_act", "gelu");
        c.put("bos_token_id", 0);
        c.put("eos_token_id", 2);
      }
      case "electra" -> {
        bertLike(c, s, s.positions(), 2, 1e-12, 0).put("hidden_act", "gelu");
        c.put("embedding_size", s.embedding());
        c.put("summary_type", "first");
        c.put("summary_use_proj", true);
        c.put("summary_activation", "gelu");
        c.put("summary_last_dropout", 0.1);
      }
      case "albert" -> {
        // albert-base-v2 uses gelu_new.
        bertLike(c, s, s.positions(), 2, 1e-12, 0).put("hidden_act", "gelu_new");
        c.put("embedding_size", s.embedding());
        c.put("num_hidden_groups", 1);
        c.put("inner_group_num", 1);
        c.put("classifier_dropout_prob", 0.1);
        c.put("bos_token_id", 2);
        c.put("eos_token_id", 3);
      }
      case "distilbert" -> {
        c.put("vocab_size", s.vocab());
        c.put("max_position_embeddings", s.positions());
        c.put("sinusoidal_pos_embds", false);
        c.put("n_layers", s.layers());
        c.put("n_heads", s.heads());
        c.put("dim", s.hidden());
        c.put("hidden_dim", s.intermediate());
        c.put("dropout", 0.1);
        c.put("attention_dropout", 0.1);
        c.put("activation", "gelu");
        c.put("initializer_range", 0.02);
        c.put("qa_dropout", 0.1);
        c.put("seq_classif_dropout", 0.2);
        c.put("pad_token_id", 0);
      }
      case "gpt2" -> {
        c.put("vocab_size", s.vocab());
        c.put("n_positions", s.positions());
        c.put("n_ctx", s.positions());
        c.put("n_embd", s.hidden());
        c.put("n_layer", s.layers());
        c.put("n_head", s.heads());
        if (s.intermediate() == 0) {
          c.putNull("n_inner");
        } else {
          c.put("n_inner", s.intermediate());
        }
        c.put("activation_function", "gelu_new");
        c.put("resid_pdrop", 0.1);
        c.put("embd_pdrop", 0.1);
        c.put("attn_pdrop", 0.1);
        c.put("layer_norm_epsilon", 1e-5);
        c.put("initializer_range", 0.02);
        c.put("summary_type", "cls_index");
        c.put("summary_use_proj", true);
        c.putNull("summary_activation");
        c.put("summary_proj_to_labels", true);
        c.put("summary_first_dropout", 0.1);
        c.put("scale_attn_weights", true);
        c.put("scale_attn_by_inverse_layer_idx", false);
        c.put("reorder_and_upcast_attn", false);
        c.put("use_cache", true);
        c.put("bos_token_id", s.vocab() - 1);
        c.put("eos_token_id", s.vocab() - 1);
      }
      default -> throw new IllegalArgumentException("unknown model_type " + modelType);
    }
    c.put("tie_word_embeddings", true);
    return c;
  }

  private static ObjectNode bertLike(ObjectNode c, TinyFamilyCheckpoint.Shape s, int maxPositions, int types,
      double eps, int pad) {
    c.put("vocab_size", s.vocab());
    c.put("hidden_size", s.hidden());
    c.put("num_hidden_layers", s.layers());
    c.put("num_attention_heads", s.heads());
    c.put("intermediate_size", s.intermediate());
    c.put("hidden_dropout_prob", 0.1);
    c.put("attention_probs_dropout_prob", 0.1);
    c.put("max_position_embeddings", maxPositions);
    c.put("type_vocab_size", types);
    c.put("initializer_range", 0.02);
    c.put("layer_norm_eps", eps);
    c.put("pad_token_id", pad);
    c.put("position_embedding_type", "absolute");
    c.put("use_cache", true);
    c.putNull("classifier_dropout");
    return c;
  }

  static String maskedLmArchitecture(String modelType) {
    return switch (modelType) {
      case "bert" -> "BertForMaskedLM";
      case "roberta" -> "RobertaForMaskedLM";
      case "xlm-roberta" -> "XLMRobertaForMaskedLM";
      case "distilbert" -> "DistilBertForMaskedLM";
      case "electra" -> "ElectraForMaskedLM";
      case "albert" -> "AlbertForMaskedLM";
      case "gpt2" -> "GPT2LMHeadModel";
      default -> throw new IllegalArgumentException("unknown model_type " + modelType);
    };
  }

  static String bareArchitecture(String modelType) {
    return switch (modelType) {
      case "bert" -> "BertModel";
      case "roberta" -> "RobertaModel";
      case "xlm-roberta" -> "XLMRobertaModel";
      case "distilbert" -> "DistilBertModel";
      case "electra" -> "ElectraModel";
      case "albert" -> "AlbertModel";
      case "gpt2" -> "GPT2Model";
      default -> throw new IllegalArgumentException("unknown model_type " + modelType);
    };
  }

  /** base_model_prefix of the family's PreTrainedModel (XLM-R keeps RoBERTa's "roberta"). */
  static String basePrefix(String modelType) {
    return switch (modelType) {
      case "bert" -> "bert.";
      case "roberta", "xlm-roberta" -> "roberta.";
      case "distilbert" -> "distilbert.";
      case "electra" -> "electra.";
      case "albert" -> "albert.";
      case "gpt2" -> "transformer.";
      default -> throw new IllegalArgumentException("unknown model_type " + modelType);
    };
  }
}
