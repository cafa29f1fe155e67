package io.headscope.model.encoderdecoders;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.testing.RawSafetensors;
import io.headscope.model.tokenizer.HandTokenizers;
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
 * A tiny random T5 or BART written as the hub stores it: {@code config.json} with the config class's keys,
 * {@code model.safetensors} under the names {@code T5ForConditionalGeneration} and {@code
 * BartForConditionalGeneration} save ({@code shared.weight}, {@code encoder.block.0.layer.0.SelfAttention.q.weight},
 * ...; {@code model.shared.weight}, {@code model.encoder.layers.0.self_attn.q_proj.weight}, ..., {@code
 * final_logits_bias}), and a hand-written {@code tokenizer.json} (T5: {@link HandT5Tokenizer}'s Unigram;
 * BART: the RoBERTa-like byte-level BPE of {@link HandTokenizers#roberta}, which BART's tokenizer is).
 *
 * <p>Every weight is a small integer times a power of two with at most 8 significant bits, exact in F32,
 * BF16 and F16 alike: the reference reads the very values the file stores.
 */
final class TinyEncoderDecoder {
  /**
   * @param t5 T5 (else BART)
   * @param dkv T5's {@code d_kv} (BART: {@code d / heads})
   * @param gated T5 v1.1's gated-gelu MLP (else relu; BART: gelu)
   * @param tied the head is {@code shared.weight}
   * @param scaleEmbedding BART's {@code scale_embedding}
   */
  record Spec(boolean t5, int encoderLayers, int decoderLayers, int d, int heads, int dkv, int ff, int vocab,
      boolean gated, boolean tied, boolean scaleEmbedding, int buckets, int maxDistance, int maxPositions, String dtype) {
    int inner() {
      return heads * dkv;
    }
  }

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
  final Map<String, Tensor> weights = new LinkedHashMap<>();

  /** A checkpoint someone else wrote (transformers: {@link io.headscope.model.testing.HubFixture}), as read. */
  TinyEncoderDecoder(Spec s, Map<String, Tensor> weights) {
    this.spec = s;
    this.weights.putAll(weights);
  }

  TinyEncoderDecoder(Spec s, long seed) {
    this.spec = s;
    Random r = new Random(seed);
    if (s.t5()) {
      t5(r);
    } else {
      bart(r);
    }
  }

  private void t5(Random r) {
    Spec s = spec;
    int d = s.d();
    put("shared.weight", r, 6, 127, s.vocab(), d); // up to +-2
    for (String stack : new String[] {"encoder", "decoder"}) {
      boolean dec = stack.equals("decoder");
      int layers = dec ? s.decoderLayers() : s.encoderLayers();
      for (int l = 0; l < layers; l++) {
        String p = stack + ".block." + l + ".layer.";
        attention(r, p + "0.SelfAttention.", "q", "k", "v", "o", false);
        if (l == 0) {
          put(p + "0.SelfAttention.relative_attention_bias.weight", r, 6, 127, s.buckets(), s.heads()); // up to +-2
        }
        gains(p + "0.layer_norm.weight", r, d, false);
        if (dec) {
          attention(r, p + "1.EncDecAttention.", "q", "k", "v", "o", false);
          gains(p + "1.layer_norm.weight", r, d, false);
        }
        String m = p + (dec ? 2 : 1) + ".";
        if (s.gated()) {
          put(m + "DenseReluDense.wi_0.weight", r, 9, 127, s.ff(), d);
          put(m + "DenseReluDense.wi_1.weight", r, 9, 127, s.ff(), d);
        } else {
          put(m + "DenseReluDense.wi.weight", r, 9, 127, s.ff(), d);
        }
        put(m + "DenseReluDense.wo.weight", r, 9, 127, d, s.ff());
        gains(m + "layer_norm.weight", r, d, false);
      }
      gains(stack + ".final_layer_norm.weight", r, d, false);
    }
    if (!s.tied()) {
      put("lm_head.weight", r, 8, 127, s.vocab(), d);
    }
  }

  private void bart(Random r) {
    Spec s = spec;
    int d = s.d();
    put("model.shared.weight", r, 7, 127, s.vocab(), d);
    for (String stack : new String[] {"encoder", "decoder"}) {
      boolean dec = stack.equals("decoder");
      String b = "model." + stack + ".";
      put(b + "embed_positions.weight", r, 7, 127, s.maxPositions() + 2, d);
      gains(b + "layernorm_embedding.weight", r, d, true);
      int layers = dec ? s.decoderLayers() : s.encoderLayers();
      for (int l = 0; l < layers; l++) {
        String p = b + "layers." + l + ".";
        attention(r, p + "self_attn.", "q_proj", "k_proj", "v_proj", "out_proj", true);
        gains(p + "self_attn_layer_norm.weight", r, d, true);
        if (dec) {
          attention(r, p + "encoder_attn.", "q_proj", "k_proj", "v_proj", "out_proj", true);
          gains(p + "encoder_attn_layer_norm.weight", r, d, true);
        }
        put(p + "fc1.weight", r, 8, 127, s.ff(), d);
        put(p + "fc1.bias", r, 8, 127, s.ff());
        put(p + "fc2.weight", r, 8, 127, d, s.ff());
        put(p + "fc2.bias", r, 8, 127, d);
        gains(p + "final_layer_norm.weight", r, d, true);
      }
    }
    put("final_logits_bias", r, 6, 127, 1, s.vocab());
    if (!s.tied()) {
      put("lm_head.weight", r, 8, 127, s.vocab(), d);
    }
  }

  private void attention(Random r, String p, String q, String k, String v, String o, boolean bias) {
    int d = spec.d();
    int inner = spec.inner();
    // queries and keys up to +-0.125: scores of a few units, so that no map is one-hot and the float32 error
    // the reference derives for every map stays under 1e-4
    put(p + q + ".weight", r, 10, 127, inner, d);
    put(p + k + ".weight", r, 10, 127, inner, d);
    put(p + v + ".weight", r, 9, 127, inner, d);
    put(p + o + ".weight", r, 9, 127, d, inner);
    if (bias) {
      put(p + q + ".bias", r, 8, 127, inner);
      put(p + k + ".bias", r, 8, 127, inner);
      put(p + v + ".bias", r, 8, 127, inner);
      put(p + o + ".bias", r, 8, 127, d);
    }
  }

  /** Integers in [-max, max] times 2^-shift: at most 8 significant bits. */
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

  /** Norm scales in [0.75, 1.25] (multiples of 1/64); a LayerNorm's bias beside its weight. */
  private void gains(String name, Random r, int n, boolean bias) {
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = (48 + r.nextInt(33)) / 64.0;
    }
    weights.put(name, new Tensor(v, new long[] {n}));
    if (bias) {
      put(name.replace(".weight", ".bias"), r, 7, 31, n); // up to +-0.25
    }
  }

  Path writeTo(Path dir) {
    try {
      Files.createDirectories(dir);
      writeConfig(dir.resolve("config.json"));
      List<RawSafetensors.Entry> entries = new ArrayList<>();
      weights.forEach((name, t) -> entries.add(new RawSafetensors.Entry(name, spec.dtype(), t.shape(), bytes(t.values()))));
      RawSafetensors.write(dir.resolve("model.safetensors"), entries);
      if (spec.t5()) {
        HandT5Tokenizer.write(dir.resolve("tokenizer.json"));
      } else {
        Path written = HandTokenizers.roberta(dir);
        Files.move(written, dir.resolve("tokenizer.json"));
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void writeConfig(Path file) throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode c = json.createObjectNode();
    Spec s = spec;
    if (s.t5()) {
      c.putArray("architectures").add("T5ForConditionalGeneration");
      c.put("model_type", "t5");
      c.put("vocab_size", s.vocab());
      c.put("d_model", s.d());
      c.put("d_kv", s.dkv());
      c.put("d_ff", s.ff());
      c.put("num_layers", s.encoderLayers());
      c.put("num_decoder_layers", s.decoderLayers());
      c.put("num_heads", s.heads());
      c.put("relative_attention_num_buckets", s.buckets());
      c.put("relative_attention_max_distance", s.maxDistance());
      c.put("layer_norm_epsilon", 1e-6);
      c.put("feed_forward_proj", s.gated() ? "gated-gelu" : "relu");
      c.put("dense_act_fn", s.gated() ? "gelu_new" : "relu");
      c.put("is_gated_act", s.gated());
      c.put("tie_word_embeddings", s.tied());
      c.put("pad_token_id", 0);
      c.put("eos_token_id", 1);
      c.put("decoder_start_token_id", 0);
      c.put("is_encoder_decoder", true);
    } else {
      c.putArray("architectures").add("BartForConditionalGeneration");
      c.put("model_type", "bart");
      c.put("vocab_size", s.vocab());
      c.put("d_model", s.d());
      c.put("encoder_layers", s.encoderLayers());
      c.put("decoder_layers", s.decoderLayers());
      c.put("encoder_attention_heads", s.heads());
      c.put("decoder_attention_heads", s.heads());
      c.put("encoder_ffn_dim", s.ff());
      c.put("decoder_ffn_dim", s.ff());
      c.put("activation_function", "gelu");
      c.put("max_position_embeddings", s.maxPositions());
      c.put("scale_embedding", s.scaleEmbedding());
      c.put("tie_word_embeddings", s.tied());
      c.put("normalize_before", false);
      c.put("add_final_layer_norm", false);
      c.put("pad_token_id", 1);
      c.put("bos_token_id", 0);
      c.put("eos_token_id", 2);
      c.put("decoder_start_token_id", 2);
      c.put("is_encoder_decoder", true);
    }
    c.put("torch_dtype", s.dtype().equals("BF16") ? "bfloat16" : s.dtype().equals("F16") ? "float16" : "float32");
    Files.writeString(file, json.writerWithDefaultPrettyPrinter().writeValueAsString(c));
  }

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
