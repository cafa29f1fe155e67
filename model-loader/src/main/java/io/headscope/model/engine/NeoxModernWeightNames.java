package io.headscope.model.engine;

import io.headscope.model.core.Family;
import java.util.Map;

/**
 * Where GPT-NeoX and ModernBERT keep the weights the engine names in BERT's terms ({@link WeightNames}), as
 * {@code modeling_gpt_neox.py} and {@code modeling_modernbert.py} spell them (without the task model's prefix,
 * {@code gpt_neox.} or {@code model.}).
 *
 * <p>GPT-NeoX: {@code embed_in}, {@code layers.N.input_layernorm} before attention, {@code
 * attention.query_key_value} (the fused projection, per head: see {@link BertWeights}), {@code attention.dense},
 * {@code post_attention_layernorm} before the MLP, {@code mlp.dense_h_to_4h} and {@code mlp.dense_4h_to_h}, {@code
 * final_layer_norm}, and the top-level {@code embed_out}.
 *
 * <p>ModernBERT: {@code embeddings.tok_embeddings} and {@code embeddings.norm}, {@code layers.N.attn_norm} (absent
 * in layer 0, whose norm is the identity), {@code attn.Wqkv} (fused as {@code [3, heads, head_dim]}: queries, keys,
 * values), {@code attn.Wo}, {@code mlp_norm}, {@code mlp.Wi} (the GeGLU's two halves fused, the activated one
 * first), {@code mlp.Wo}, {@code final_norm}, and the top-level head {@code head.dense}, {@code head.norm}, {@code
 * decoder}.
 */
final class NeoxModernWeightNames {
  private NeoxModernWeightNames() {}

  private static final Map<String, String> NEOX_LAYER = Map.of(
      "attention.self.qkv", "attention.query_key_value", "attention.output.dense", "attention.dense",
      "attention.output.LayerNorm", "input_layernorm", "intermediate.dense", "mlp.dense_h_to_4h",
      "output.dense", "mlp.dense_4h_to_h", "output.LayerNorm", "post_attention_layernorm");
  private static final Map<String, String> MODERN_LAYER = Map.of(
      "attention.self.qkv", "attn.Wqkv", "attention.output.dense", "attn.Wo",
      "attention.output.LayerNorm", "attn_norm", "intermediate.dense", "mlp.Wi",
      "output.dense", "mlp.Wo", "output.LayerNorm", "mlp_norm");
  private static final Map<String, String> MODERN_HEAD = Map.of(
      "cls.predictions.transform.dense.weight", "head.dense.weight",
      "cls.predictions.transform.LayerNorm.weight", "head.norm.weight",
      "cls.predictions.transform.LayerNorm.bias", "head.norm.bias",
      "cls.predictions.decoder.weight", "decoder.weight",
      "cls.predictions.decoder.bias", "decoder.bias");

  /** A base-model weight's name without the task prefix, or null when the family has none. */
  static String base(Family f, String canonical, String layer, String inLayer) {
    boolean neox = f == Family.GPT_NEOX;
    if (canonical.equals("embeddings.word_embeddings.weight")) {
      return neox ? "embed_in.weight" : "embeddings.tok_embeddings.weight";
    }
    if (canonical.startsWith("embeddings.LayerNorm.")) {
      return neox ? null : "embeddings.norm" + suffix(canonical);
    }
    if (canonical.startsWith("final.LayerNorm.")) {
      return (neox ? "final_layer_norm" : "final_norm") + suffix(canonical);
    }
    if (layer == null) {
      return null;
    }
    String n = (neox ? NEOX_LAYER : MODERN_LAYER).get(inLayer.substring(0, inLayer.lastIndexOf('.')));
    return n == null ? null : "layers." + layer + "." + n + suffix(inLayer);
  }

  /** The head's names, top-level: GPT-NeoX's {@code embed_out}, ModernBERT's {@code head} and {@code decoder}. */
  static String head(Family f, String canonical) {
    if (f == Family.GPT_NEOX) {
      return canonical.equals("cls.predictions.decoder.weight") ? "embed_out.weight" : null;
    }
    return MODERN_HEAD.get(canonical);
  }

  private static String suffix(String s) {
    return s.substring(s.lastIndexOf('.'));
  }
}
