package io.headscope.model.engine;

import java.util.Map;

/**
 * Where Llama, Qwen2 and Mistral keep the weights the engine names in BERT's terms ({@link WeightNames}),
 * as their {@code modeling_*.py} files spell them: {@code model.embed_tokens}, {@code
 * model.layers.N.self_attn.{q,k,v,o}_proj}, {@code model.layers.N.mlp.{gate,up,down}_proj}, {@code
 * input_layernorm} before attention and {@code post_attention_layernorm} before the MLP, {@code model.norm}
 * after the last layer, and {@code lm_head} (absent when the head is tied to the embeddings).
 *
 * <p>The engine's names beyond BERT's: {@code intermediate.gate} (the gate of a gated MLP; {@code
 * intermediate.dense} is its up projection and {@code output.dense} its down projection).
 */
final class DecoderWeightNames {
  private DecoderWeightNames() {}

  private static final Map<String, String> LAYER = Map.of(
      "attention.self.query", "self_attn.q_proj", "attention.self.key", "self_attn.k_proj",
      "attention.self.value", "self_attn.v_proj", "attention.output.dense", "self_attn.o_proj",
      "attention.output.LayerNorm", "input_layernorm", "intermediate.gate", "mlp.gate_proj",
      "intermediate.dense", "mlp.up_proj", "output.dense", "mlp.down_proj",
      "output.LayerNorm", "post_attention_layernorm");

  /** A base-model weight's name without the {@code model.} prefix, or null when the family has none. */
  static String base(String canonical, String layer, String inLayer) {
    if (canonical.equals("embeddings.word_embeddings.weight")) {
      return "embed_tokens.weight";
    }
    if (canonical.equals("final.LayerNorm.weight")) {
      return "norm.weight";
    }
    if (layer == null) {
      return null;
    }
    int dot = inLayer.lastIndexOf('.');
    String n = LAYER.get(inLayer.substring(0, dot));
    return n == null ? null : "layers." + layer + "." + n + inLayer.substring(dot);
  }

  /** The LM head: {@code lm_head.weight}, top-level. */
  static String head(String canonical) {
    return canonical.equals("cls.predictions.decoder.weight") ? "lm_head.weight" : null;
  }
}
