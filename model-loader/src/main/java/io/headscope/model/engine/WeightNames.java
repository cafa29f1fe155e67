package io.headscope.model.engine;

import io.headscope.model.core.Family;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where each family keeps the weights BERT's names describe: the engine asks for a weight by its
 * Hugging Face BERT name ({@code encoder.layer.3.attention.self.query.weight}) and this table says under
 * which names the family's checkpoint stores it, as transformers' {@code modeling_*.py} files spell them.
 * A base model's weights come with the task model's prefix ({@code roberta.}) or without it (a bare
 * model); the masked-LM head's names are top-level.
 *
 * <p>Names the engine uses beyond BERT's: {@code embeddings.projection} (ELECTRA's
 * {@code embeddings_project}, ALBERT's {@code embedding_hidden_mapping_in}), {@code
 * encoder.layer.N.attention.self.qkv} (GPT-2's fused {@code c_attn}), {@code final.LayerNorm} (GPT-2's
 * {@code ln_f}) and {@code cls.predictions.decoder.weight} (an output embedding stored apart from the
 * input one). For GPT-2 the LayerNorms {@code attention.output.LayerNorm} and {@code output.LayerNorm}
 * are {@code ln_1} and {@code ln_2}, applied before their sublayers.
 */
final class WeightNames {
  private WeightNames() {}

  /** One place a weight may be stored; {@code transposed} for GPT-2's Conv1D, which keeps (in, out). */
  record Source(String name, boolean transposed) {}

  private static final Pattern LAYER = Pattern.compile("encoder\\.layer\\.(\\d+)\\.(.+)");

  /** Where {@code canonical} may be, in the order to try; empty when the family has no such weight. */
  static List<Source> sources(Family f, String canonical) {
    if (canonical.startsWith("cls.")) {
      String n = head(f, canonical);
      return n == null ? List.of() : List.of(new Source(n, false));
    }
    if (canonical.startsWith("classifier.") || canonical.startsWith("pooler.")) {
      // the other families' sequence-classification heads are built differently (dense + out_proj, or
      // pre_classifier): none is read as BERT's
      if (f != Family.BERT) {
        return List.of();
      }
      return canonical.startsWith("classifier.") ? List.of(new Source(canonical, false))
          : List.of(new Source(canonical, false), new Source("bert." + canonical, false));
    }
    String rel = base(f, canonical);
    if (rel == null) {
      return List.of();
    }
    boolean conv1d = f == Family.GPT2 && rel.endsWith(".weight") && (rel.contains(".attn.c_") || rel.contains(".mlp.c_"));
    return List.of(new Source(rel, conv1d), new Source(f.basePrefix + rel, conv1d));
  }

  /** A base-model weight's name without the task prefix, or null when the family has none. */
  private static String base(Family f, String c) {
    Matcher m = LAYER.matcher(c);
    String layer = m.matches() ? m.group(1) : null;
    String inLayer = m.matches() ? m.group(2) : null;
    return switch (f) {
      case BERT, ROBERTA, XLM_ROBERTA -> c.startsWith("embeddings.projection") || c.startsWith("final.")
          || c.contains(".qkv.") ? null : c;
      case ELECTRA -> c.startsWith("embeddings.projection") ? c.replace("embeddings.projection", "embeddings_project")
          : c.startsWith("final.") || c.contains(".qkv.") ? null : c;
      case DISTILBERT -> {
        if (c.startsWith("embeddings.")) {
          yield c.startsWith("embeddings.token_type") || c.startsWith("embeddings.projection") ? null : c;
        }
        String n = layer == null ? null : DISTILBERT_LAYER.get(stem(inLayer));
        yield n == null ? null : "transformer.layer." + layer + "." + n + suffix(inLayer);
      }
      case ALBERT -> {
        if (c.startsWith("embeddings.projection")) {
          yield c.replace("embeddings.projection", "encoder.embedding_hidden_mapping_in");
        }
        if (c.startsWith("embeddings.")) {
          yield c;
        }
        // one layer's weights serve every layer
        String n = layer == null ? null : ALBERT_LAYER.get(stem(inLayer));
        yield n == null ? null : "encoder.albert_layer_groups.0.albert_layers.0." + n + suffix(inLayer);
      }
      case GPT2 -> {
        if (c.equals("embeddings.word_embeddings.weight")) {
          yield "wte.weight";
        }
        if (c.equals("embeddings.position_embeddings.weight")) {
          yield "wpe.weight";
        }
        if (c.startsWith("final.LayerNorm")) {
          yield "ln_f" + suffix(c);
        }
        String n = layer == null ? null : GPT2_LAYER.get(stem(inLayer));
        yield n == null ? null : "h." + layer + "." + n + suffix(inLayer);
      }
      case LLAMA, QWEN2, MISTRAL, GEMMA -> DecoderWeightNames.base(c, layer, inLayer);
      case GPT_NEOX, MODERNBERT -> NeoxModernWeightNames.base(f, c, layer, inLayer);
    };
  }

  /** The masked-LM (GPT-2: LM) head's names. */
  private static String head(Family f, String c) {
    return switch (f) {
      case BERT -> c;
      case ROBERTA, XLM_ROBERTA -> HEAD_ROBERTA.get(c);
      case ELECTRA -> HEAD_ELECTRA.get(c);
      case DISTILBERT -> HEAD_DISTILBERT.get(c);
      case ALBERT -> HEAD_ALBERT.get(c);
      case GPT2 -> c.equals("cls.predictions.decoder.weight") ? "lm_head.weight" : null;
      case LLAMA, QWEN2, MISTRAL, GEMMA -> DecoderWeightNames.head(c);
      case GPT_NEOX, MODERNBERT -> NeoxModernWeightNames.head(f, c);
    };
  }

  private static String stem(String s) {
    return s.substring(0, s.lastIndexOf('.'));
  }

  private static String suffix(String s) {
    return s.substring(s.lastIndexOf('.'));
  }

  private static final Map<String, String> DISTILBERT_LAYER = Map.of(
      "attention.self.query", "attention.q_lin", "attention.self.key", "attention.k_lin",
      "attention.self.value", "attention.v_lin", "attention.output.dense", "attention.out_lin",
      "attention.output.LayerNorm", "sa_layer_norm", "intermediate.dense", "ffn.lin1",
      "output.dense", "ffn.lin2", "output.LayerNorm", "output_layer_norm");
  private static final Map<String, String> ALBERT_LAYER = Map.of(
      "attention.self.query", "attention.query", "attention.self.key", "attention.key",
      "attention.self.value", "attention.value", "attention.output.dense", "attention.dense",
      "attention.output.LayerNorm", "attention.LayerNorm", "intermediate.dense", "ffn",
      "output.dense", "ffn_output", "output.LayerNorm", "full_layer_layer_norm");
  private static final Map<String, String> GPT2_LAYER = Map.of(
      "attention.self.qkv", "attn.c_attn", "attention.output.dense", "attn.c_proj",
      "attention.output.LayerNorm", "ln_1", "intermediate.dense", "mlp.c_fc", "output.dense", "mlp.c_proj",
      "output.LayerNorm", "ln_2");

  private static Map<String, String> head(String dense, String norm, String bias, String decoder) {
    return Map.of(
        "cls.predictions.transform.dense.weight", dense + ".weight",
        "cls.predictions.transform.dense.bias", dense + ".bias",
        "cls.predictions.transform.LayerNorm.weight", norm + ".weight",
        "cls.predictions.transform.LayerNorm.bias", norm + ".bias",
        "cls.predictions.bias", bias,
        "cls.predictions.decoder.bias", decoder + ".bias",
        "cls.predictions.decoder.weight", decoder + ".weight");
  }

  private static final Map<String, String> HEAD_ROBERTA = head("lm_head.dense", "lm_head.layer_norm",
      "lm_head.bias", "lm_head.decoder");
  private static final Map<String, String> HEAD_ELECTRA = head("generator_predictions.dense",
      "generator_predictions.LayerNorm", "generator_lm_head.bias", "generator_lm_head");
  private static final Map<String, String> HEAD_DISTILBERT = head("vocab_transform", "vocab_layer_norm",
      "vocab_projector.bias", "vocab_projector");
  private static final Map<String, String> HEAD_ALBERT = head("predictions.dense", "predictions.LayerNorm",
      "predictions.bias", "predictions.decoder");
}
