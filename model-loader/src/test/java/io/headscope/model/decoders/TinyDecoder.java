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
 * A tiny Llama, Qwen2 or Mistral with seeded random weights, written in the hub's layout: {@code
 * config.json} as the family's config class writes it, the weights under the names of its {@code
 * modeling_*.py} ({@code model.layers.N.self_attn.q_proj.weight}, ...) in bf16 or fp16, in one {@code
 * model.safetensors} or in shards with {@code model.safetensors.index.json}, and a hand-written byte-level
 * BPE {@code tokenizer.json} ({@link HandLlamaTokenizer}).
 *
 * <p>Every weight is a small integer times a power of two, chosen so that it is exact in bf16 and fp16
 * alike: the reference reads the very values the file stores, and widening them is exact.
 */
final class TinyDecoder {
  /** The shape and the parts under test. */
  record Spec(String modelType, int layers, int hidden, int heads, int kvHeads, int intermediate, int vocab,
      double ropeTheta, double[] llama3Scaling, int window, boolean qkvBias, boolean tied, String dtype, int shards,
      double rmsEps, int headDim) {
    /** Without an explicit {@code head_dim}: {@code hidden / heads}, as the config classes default it. */
    Spec(String modelType, int layers, int hidden, int heads, int kvHeads, int intermediate, int vocab,
        double ropeTheta, double[] llama3Scaling, int window, boolean qkvBias, boolean tied, String dtype, int shards,
        double rmsEps) {
      this(modelType, layers, hidden, heads, kvHeads, intermediate, vocab, ropeTheta, llama3Scaling, window, qkvBias,
          tied, dtype, shards, rmsEps, hidden / heads);
    }

    int headSize() {
      return headDim;
    }
  }

  /** One weight: its values (row-major) and shape. */
  record Tensor(double[] values, long[] shape) {
    double[][] matrix() {
      int rows = (int) shape[0];
      int cols = (int) shape[1];
      double[][] m = new double[rows][cols];
      for (int r = 0; r < rows; r++) {
        System.arraycopy(values, r * cols, m[r], 0, cols);
      }
      return m;
    }
  }

  final Spec spec;
  /** Every weight by its checkpoint name, in the order written. */
  final Map<String, Tensor> weights = new LinkedHashMap<>();

  /** A checkpoint someone else wrote (transformers: {@link io.headscope.model.testing.HubFixture}), as read. */
  TinyDecoder(Spec s, Map<String, Tensor> weights) {
    this.spec = s;
    this.weights.putAll(weights);
  }

  TinyDecoder(Spec s, long seed) {
    this.spec = s;
    Random r = new Random(seed);
    int d = s.hidden();
    int dh = s.headSize();
    int f = s.intermediate();
    put("model.embed_tokens.weight", r, 7, 255, s.vocab(), d); // up to +-2
    for (int l = 0; l < s.layers(); l++) {
      String p = "model.layers." + l + ".";
      gains(p + "input_layernorm.weight", r, d);
      put(p + "self_attn.q_proj.weight", r, 9, 255, (long) s.heads() * dh, d); // up to +-0.5
      put(p + "self_attn.k_proj.weight", r, 9, 255, (long) s.kvHeads() * dh, d);
      put(p + "self_attn.v_proj.weight", r, 9, 255, (long) s.kvHeads() * dh, d);
      if (s.qkvBias()) {
        put(p + "self_attn.q_proj.bias", r, 9, 255, (long) s.heads() * dh);
        put(p + "self_attn.k_proj.bias", r, 9, 255, (long) s.kvHeads() * dh);
        put(p + "self_attn.v_proj.bias", r, 9, 255, (long) s.kvHeads() * dh);
      }
      put(p + "self_attn.o_proj.weight", r, 10, 255, d, (long) s.heads() * dh);
      gains(p + "post_attention_layernorm.weight", r, d);
      put(p + "mlp.gate_proj.weight", r, 10, 255, f, d);
      put(p + "mlp.up_proj.weight", r, 10, 255, f, d);
      put(p + "mlp.down_proj.weight", r, 10, 255, d, f);
    }
    gains("model.norm.weight", r, d);
    if (!s.tied()) {
      put("lm_head.weight", r, 9, 255, s.vocab(), d);
    }
  }

  /** Integers in [-max, max] times 2^-shift: at most 8 significant bits, exact in bf16 and fp16. */
  private void put(String name, Random r, int shift, int max, long... shape) {
    long n = 1;
    for (long x : shape) {
      n *= x;
    }
    double[] v = new double[(int) n];
    for (int i = 0; i < v.length; i++) {
      v[i] = (r.nextInt(2 * max + 1) - max) * Math.scalb(1.0, -shift);
    }
    weights.put(name, new Tensor(v, shape));
  }

  /** Norm scales in [0.75, 1.25], multiples of 1/64; Gemma stores them less one (its norm scales by 1 + w). */
  private void gains(String name, Random r, int n) {
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = (48 + r.nextInt(33)) / 64.0 - (gemma() ? 1 : 0);
    }
    weights.put(name, new Tensor(v, new long[] {n}));
  }

  boolean gemma() {
    return spec.modelType().equals("gemma");
  }

  /** Writes the folder and returns it. */
  Path writeTo(Path dir) {
    try {
      Files.createDirectories(dir);
      writeConfig(dir.resolve("config.json"));
      List<RawSafetensors.Entry> entries = new ArrayList<>();
      weights.forEach((name, t) -> entries.add(new RawSafetensors.Entry(name, spec.dtype(), t.shape(), bytes(t.values()))));
      if (spec.shards() <= 1) {
        RawSafetensors.write(dir.resolve("model.safetensors"), entries);
      } else {
        ObjectMapper json = new ObjectMapper();
        ObjectNode index = json.createObjectNode();
        ObjectNode map = json.createObjectNode();
        long total = 0;
        int per = (entries.size() + spec.shards() - 1) / spec.shards();
        for (int k = 0; k < spec.shards(); k++) {
          String file = String.format("model-%05d-of-%05d.safetensors", k + 1, spec.shards());
          List<RawSafetensors.Entry> part = entries.subList(k * per, Math.min(entries.size(), (k + 1) * per));
          RawSafetensors.write(dir.resolve(file), part);
          for (RawSafetensors.Entry e : part) {
            map.put(e.name(), file);
            total += e.data().length;
          }
        }
        index.putObject("metadata").put("total_size", total);
        index.set("weight_map", map);
        Files.writeString(dir.resolve("model.safetensors.index.json"), json.writerWithDefaultPrettyPrinter()
            .writeValueAsString(index));
      }
      HandLlamaTokenizer.write(dir.resolve("tokenizer.json"), !spec.modelType().equals("qwen2"));
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void writeConfig(Path file) throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode c = json.createObjectNode();
    String arch = switch (spec.modelType()) {
      case "qwen2" -> "Qwen2ForCausalLM";
      case "mistral" -> "MistralForCausalLM";
      case "gemma" -> "GemmaForCausalLM";
      default -> "LlamaForCausalLM";
    };
    c.putArray("architectures").add(arch);
    c.put("model_type", spec.modelType());
    c.put("vocab_size", spec.vocab());
    c.put("hidden_size", spec.hidden());
    c.put("intermediate_size", spec.intermediate());
    c.put("num_hidden_layers", spec.layers());
    c.put("num_attention_heads", spec.heads());
    c.put("num_key_value_heads", spec.kvHeads());
    if (gemma()) {
      c.put("hidden_activation", "gelu_pytorch_tanh");
      c.put("hidden_act", "gelu_pytorch_tanh");
      c.put("head_dim", spec.headSize());
      c.put("attention_bias", false);
    } else {
      c.put("hidden_act", "silu");
    }
    c.put("max_position_embeddings", 64);
    c.put("rms_norm_eps", spec.rmsEps());
    c.put("rope_theta", spec.ropeTheta());
    c.put("tie_word_embeddings", spec.tied());
    c.put("torch_dtype", spec.dtype().equals("BF16") ? "bfloat16" : spec.dtype().equals("F16") ? "float16" : "float32");
    c.put("bos_token_id", HandLlamaTokenizer.BOS);
    c.put("eos_token_id", HandLlamaTokenizer.EOS);
    if (spec.modelType().equals("llama")) {
      c.put("attention_bias", false);
      c.put("mlp_bias", false);
      if (spec.llama3Scaling() != null) {
        ObjectNode s = c.putObject("rope_scaling");
        s.put("rope_type", "llama3");
        s.put("factor", spec.llama3Scaling()[0]);
        s.put("low_freq_factor", spec.llama3Scaling()[1]);
        s.put("high_freq_factor", spec.llama3Scaling()[2]);
        s.put("original_max_position_embeddings", (int) spec.llama3Scaling()[3]);
      } else {
        c.putNull("rope_scaling");
      }
    }
    if (spec.modelType().equals("mistral")) {
      if (spec.window() > 0) {
        c.put("sliding_window", spec.window());
      } else {
        c.putNull("sliding_window");
      }
    }
    if (spec.modelType().equals("qwen2")) {
      c.put("use_sliding_window", false);
      c.put("sliding_window", 4096);
      c.put("max_window_layers", spec.layers());
    }
    Files.writeString(file, json.writerWithDefaultPrettyPrinter().writeValueAsString(c));
  }

  /** The values as the dtype's little-endian bytes (exact: see the class comment). */
  private byte[] bytes(double[] v) {
    int width = spec.dtype().equals("F32") ? 4 : 2;
    ByteBuffer b = ByteBuffer.allocate(v.length * width).order(ByteOrder.LITTLE_ENDIAN);
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
        case "F16" -> b.putShort(toHalf(f));
        default -> throw new IllegalArgumentException(spec.dtype());
      }
    }
    return b.array();
  }

  /** A float that fp16 holds exactly (normal or zero), as its bits. */
  static short toHalf(float f) {
    if (f == 0) {
      return (short) (Float.floatToIntBits(f) >>> 16 & 0x8000);
    }
    int bits = Float.floatToIntBits(f);
    int sign = bits >>> 16 & 0x8000;
    int exp = (bits >>> 23 & 0xFF) - 127 + 15;
    int mant = bits & 0x7FFFFF;
    if (exp <= 0 || exp >= 31 || (mant & 0x1FFF) != 0) {
      throw new IllegalStateException(f + " is not exact in fp16");
    }
    return (short) (sign | exp << 10 | mant >>> 13);
  }
}
