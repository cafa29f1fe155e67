package io.headscope.model.decoders;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.testing.RawSafetensors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A tiny GPT-NeoX (Pythia) or ModernBERT with seeded random weights in the hub's layout: {@code config.json} as
 * GPTNeoXConfig or ModernBertConfig writes it, the weights under the names of {@code modeling_gpt_neox.py}
 * ({@code gpt_neox.layers.N.attention.query_key_value.weight}, ..., {@code embed_out.weight}) or {@code
 * modeling_modernbert.py} ({@code model.layers.N.attn.Wqkv.weight}, ..., {@code head.dense.weight}, {@code
 * decoder.bias}, the decoder's weight tied and not stored), and a hand-written tokenizer.
 *
 * <p>Weights are small integers times powers of two, exact in fp16 and bf16 (as {@link TinyDecoder}'s).
 */
final class TinyNeoxModern {
  /**
   * The shape and the parts under test.
   *
   * @param rotaryPct GPT-NeoX's share of each head that turns
   * @param parallel GPT-NeoX's {@code use_parallel_residual}
   * @param theta GPT-NeoX's {@code rotary_emb_base}, ModernBERT's {@code global_rope_theta}
   * @param localTheta ModernBERT's {@code local_rope_theta}
   * @param every ModernBERT's {@code global_attn_every_n_layers}
   * @param window ModernBERT's {@code local_attention}
   */
  record Spec(String modelType, int layers, int hidden, int heads, int intermediate, int vocab, String dtype,
      double rotaryPct, boolean parallel, double theta, double localTheta, int every, int window, double eps) {
    int headSize() {
      return hidden / heads;
    }

    boolean neox() {
      return modelType.equals("gpt_neox");
    }
  }

  final Spec spec;
  final Map<String, TinyDecoder.Tensor> weights = new LinkedHashMap<>();
  /** Tensors written as they are after the weights (buffers older checkpoints carry: masks, inverse frequencies). */
  final List<RawSafetensors.Entry> buffers = new ArrayList<>();
  /** GPT-NeoX's {@code tie_word_embeddings} as written in config.json (GPTNeoXConfig's default false). */
  boolean tied;

  /** A checkpoint someone else wrote (transformers: {@link io.headscope.model.testing.HubFixture}), as read. */
  TinyNeoxModern(Spec s, Map<String, TinyDecoder.Tensor> weights, boolean tied) {
    this.spec = s;
    this.weights.putAll(weights);
    this.tied = tied;
  }

  TinyNeoxModern(Spec s, long seed) {
    this.spec = s;
    Random r = new Random(seed);
    int d = s.hidden();
    int f = s.intermediate();
    if (s.neox()) {
      put("gpt_neox.embed_in.weight", r, 7, 255, s.vocab(), d);
      for (int l = 0; l < s.layers(); l++) {
        String p = "gpt_neox.layers." + l + ".";
        gains(p + "input_layernorm.weight", r, d);
        put(p + "input_layernorm.bias", r, 9, 63, d);
        gains(p + "post_attention_layernorm.weight", r, d);
        put(p + "post_attention_layernorm.bias", r, 9, 63, d);
        put(p + "attention.query_key_value.weight", r, 10, 255, 3L * d, d); // rows per head: [q_h, k_h, v_h]
        put(p + "attention.query_key_value.bias", r, 9, 63, 3L * d);
        put(p + "attention.dense.weight", r, 10, 255, d, d);
        put(p + "attention.dense.bias", r, 9, 63, d);
        put(p + "mlp.dense_h_to_4h.weight", r, 10, 255, f, d);
        put(p + "mlp.dense_h_to_4h.bias", r, 9, 63, f);
        put(p + "mlp.dense_4h_to_h.weight", r, 10, 255, d, f);
        put(p + "mlp.dense_4h_to_h.bias", r, 9, 63, d);
      }
      gains("gpt_neox.final_layer_norm.weight", r, d);
      put("gpt_neox.final_layer_norm.bias", r, 9, 63, d);
      put("embed_out.weight", r, 9, 255, s.vocab(), d);
    } else {
      put("model.embeddings.tok_embeddings.weight", r, 7, 255, s.vocab(), d);
      gains("model.embeddings.norm.weight", r, d);
      for (int l = 0; l < s.layers(); l++) {
        String p = "model.layers." + l + ".";
        if (l > 0) { // layer 0's attn_norm is nn.Identity: no weight
          gains(p + "attn_norm.weight", r, d);
        }
        put(p + "attn.Wqkv.weight", r, 10, 255, 3L * d, d); // [3, heads, head_dim]
        put(p + "attn.Wo.weight", r, 10, 255, d, d);
        gains(p + "mlp_norm.weight", r, d);
        put(p + "mlp.Wi.weight", r, 10, 255, 2L * f, d); // the activated half, then the gate
        put(p + "mlp.Wo.weight", r, 10, 255, d, f);
      }
      gains("model.final_norm.weight", r, d);
      put("head.dense.weight", r, 9, 255, d, d);
      gains("head.norm.weight", r, d);
      put("decoder.bias", r, 9, 255, s.vocab());
    }
  }

  private void put(String name, Random r, int shift, int max, long... shape) {
    long n = 1;
    for (long x : shape) {
      n *= x;
    }
    double[] v = new double[(int) n];
    for (int i = 0; i < v.length; i++) {
      v[i] = (r.nextInt(2 * max + 1) - max) * Math.scalb(1.0, -shift);
    }
    weights.put(name, new TinyDecoder.Tensor(v, shape));
  }

  private void gains(String name, Random r, int n) {
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = (48 + r.nextInt(33)) / 64.0;
    }
    weights.put(name, new TinyDecoder.Tensor(v, new long[] {n}));
  }

  Path writeTo(Path dir) {
    try {
      Files.createDirectories(dir);
      writeConfig(dir.resolve("config.json"));
      List<RawSafetensors.Entry> entries = new ArrayList<>();
      weights.forEach((name, t) -> entries.add(new RawSafetensors.Entry(name, spec.dtype(), t.shape(), bytes(t.values()))));
      entries.addAll(buffers);
      RawSafetensors.write(dir.resolve("model.safetensors"), entries);
      if (spec.neox()) {
        HandLlamaTokenizer.write(dir.resolve("tokenizer.json"), false); // Pythia's tokenizer adds no BOS
      } else {
        HandModernTokenizer.write(dir.resolve("tokenizer.json"));
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void writeConfig(Path file) throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode c = json.createObjectNode();
    c.putArray("architectures").add(spec.neox() ? "GPTNeoXForCausalLM" : "ModernBertForMaskedLM");
    c.put("model_type", spec.modelType());
    c.put("vocab_size", spec.vocab());
    c.put("hidden_size", spec.hidden());
    c.put("intermediate_size", spec.intermediate());
    c.put("num_hidden_layers", spec.layers());
    c.put("num_attention_heads", spec.heads());
    c.put("max_position_embeddings", 64);
    c.put("torch_dtype", spec.dtype().equals("BF16") ? "bfloat16" : spec.dtype().equals("F16") ? "float16" : "float32");
    if (spec.neox()) {
      c.put("hidden_act", "gelu");
      c.put("rotary_pct", spec.rotaryPct());
      c.put("rotary_emb_base", spec.theta());
      c.put("use_parallel_residual", spec.parallel());
      c.put("layer_norm_eps", spec.eps());
      c.put("tie_word_embeddings", tied);
      c.put("attention_bias", true);
      c.putNull("rope_scaling");
      c.put("bos_token_id", HandLlamaTokenizer.BOS);
      c.put("eos_token_id", HandLlamaTokenizer.EOS);
    } else {
      c.put("hidden_activation", "gelu");
      c.put("classifier_activation", "gelu");
      c.put("norm_eps", spec.eps());
      c.put("norm_bias", false);
      c.put("attention_bias", false);
      c.put("mlp_bias", false);
      c.put("classifier_bias", false);
      c.put("decoder_bias", true);
      c.put("global_rope_theta", spec.theta());
      c.put("local_rope_theta", spec.localTheta());
      c.put("global_attn_every_n_layers", spec.every());
      c.put("local_attention", spec.window());
      c.put("tie_word_embeddings", true);
      c.put("pad_token_id", HandModernTokenizer.PAD);
      c.put("cls_token_id", HandModernTokenizer.CLS);
      c.put("sep_token_id", HandModernTokenizer.SEP);
      c.put("mask_token_id", HandModernTokenizer.MASK);
    }
    Files.writeString(file, json.writerWithDefaultPrettyPrinter().writeValueAsString(c));
  }

  private byte[] bytes(double[] v) {
    ByteBuffer b = ByteBuffer.allocate(v.length * (spec.dtype().equals("F32") ? 4 : 2)).order(ByteOrder.LITTLE_ENDIAN);
    for (double x : v) {
      float f = (float) x;
      switch (spec.dtype()) {
        case "F32" -> b.putFloat(f);
        case "BF16" -> {
          int bits = Float.floatToIntBits(f);
          if ((bits & 0xFFFF) != 0) {
            throw new IllegalStateException(x + " is not exact in bf16");
          }
          b.putShort((short) (bits >>> 16));
        }
        case "F16" -> b.putShort(TinyDecoder.toHalf(f));
        default -> throw new IllegalArgumentException(spec.dtype());
      }
    }
    return b.array();
  }
}
