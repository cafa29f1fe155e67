package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.headscope.model.checkpoint.FloatWidening;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.core.EncoderDecoderConfig;
import io.headscope.model.core.HeadScopeException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An encoder-decoder's weights in native memory, found by the names its hub checkpoints use: T5's
 * {@code shared.weight}, {@code encoder.block.N.layer.0.SelfAttention.q.weight}, {@code
 * decoder.block.N.layer.1.EncDecAttention.q.weight}, {@code ...DenseReluDense.wi.weight} (v1.1: {@code wi_0},
 * {@code wi_1}); BART's {@code model.shared.weight}, {@code model.encoder.layers.N.self_attn.q_proj.weight},
 * {@code model.decoder.layers.N.encoder_attn.q_proj.weight}, {@code fc1}, {@code fc2}, {@code
 * final_logits_bias} (with or without the {@code model.} that {@code BartForConditionalGeneration} adds).
 * Only the tensors the forward pass reads are loaded, each widened to float32 and checked finite; a
 * missing one or a wrong shape is one line naming it.
 */
final class EncoderDecoderWeights implements AutoCloseable {
  /** One attention block's projections, (out, in); biases null in T5. */
  record Attention(NDArray q, NDArray qb, NDArray k, NDArray kb, NDArray v, NDArray vb, NDArray o, NDArray ob) {}

  /** A norm's scale and shift (shift null for T5's RMS norm). */
  record Norm(NDArray g, NDArray b) {}

  /**
   * One layer: self-attention, cross-attention (decoder only, else null), the MLP ({@code up} only when
   * gated: {@code in} is then the gate, {@code wi_0}) and a norm per block.
   */
  record Layer(Attention self, Norm selfNorm, Attention cross, Norm crossNorm, NDArray in, NDArray inB, NDArray up,
      NDArray out, NDArray outB, Norm mlpNorm) {}

  /**
   * One stack: BART's position table and embedding norm, T5's relative bias table ({@code (buckets, H)}, in
   * Java) and final norm; null where the family has none.
   */
  record Stack(NDArray positions, Norm embeddingNorm, float[][] relativeBias, Layer[] layers, Norm finalNorm) {}

  final EncoderDecoderConfig config;
  final NDManager manager;
  final NDArray shared;
  /** The head's matrix: {@code shared} when tied, else {@code lm_head.weight}. */
  final NDArray head;
  /** BART's {@code final_logits_bias} as (V); null in T5. */
  final NDArray logitsBias;
  final Stack encoder;
  final Stack decoder;

  private final Map<String, Safetensors.TensorInfo> infos = new HashMap<>();
  private final Map<String, Safetensors> fileOf = new HashMap<>();
  private final Path where;

  private EncoderDecoderWeights(EncoderDecoderConfig c, List<Safetensors> files, Path where, NDManager manager) {
    this.config = c;
    this.manager = manager;
    this.where = where;
    for (Safetensors f : files) {
      for (Safetensors.TensorInfo info : f.tensors().values()) {
        if (infos.put(info.name(), info) != null) {
          throw new HeadScopeException(where + ": tensor " + info.name() + " is stored in two shards.");
        }
        fileOf.put(info.name(), f);
      }
    }
    int d = c.dModel();
    int v = c.vocabSize();
    boolean t5 = c.family() == EncoderDecoderConfig.Family.T5;
    shared = tensor(t5 ? new String[] {"shared.weight", "encoder.embed_tokens.weight"}
        : new String[] {"model.shared.weight", "shared.weight", "model.encoder.embed_tokens.weight"}, v, d);
    head = c.tiedHead() ? shared : tensor(new String[] {"lm_head.weight"}, v, d);
    logitsBias = t5 ? null : optional(new String[] {"final_logits_bias"}, 1, v);
    encoder = t5 ? t5Stack("encoder", false) : bartStack("encoder", false);
    decoder = t5 ? t5Stack("decoder", true) : bartStack("decoder", true);
  }

  static EncoderDecoderWeights load(EncoderDecoderConfig c, List<Safetensors> files, Path where, NDManager parent) {
    NDManager manager = parent.newSubManager();
    try {
      return new EncoderDecoderWeights(c, files, where, manager);
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  private Stack t5Stack(String s, boolean dec) {
    EncoderDecoderConfig c = config;
    int d = c.dModel();
    int h = c.heads(dec);
    int inner = h * c.headSize();
    int f = dec ? c.decoderFf() : c.encoderFf();
    boolean gated = c.decoder().gated();
    Layer[] layers = new Layer[c.layers(dec)];
    for (int l = 0; l < layers.length; l++) {
      String p = s + ".block." + l + ".layer.";
      Attention self = t5Attention(p + "0.SelfAttention.", d, inner);
      Norm selfNorm = new Norm(tensor(p + "0.layer_norm.weight", d), null);
      Attention cross = dec ? t5Attention(p + "1.EncDecAttention.", d, inner) : null;
      Norm crossNorm = dec ? new Norm(tensor(p + "1.layer_norm.weight", d), null) : null;
      String m = p + (dec ? 2 : 1) + ".";
      NDArray in = tensor(m + "DenseReluDense." + (gated ? "wi_0" : "wi") + ".weight", f, d);
      NDArray up = gated ? tensor(m + "DenseReluDense.wi_1.weight", f, d) : null;
      NDArray out = tensor(m + "DenseReluDense.wo.weight", d, f);
      layers[l] = new Layer(self, selfNorm, cross, crossNorm, in, null, up, out, null,
          new Norm(tensor(m + "layer_norm.weight", d), null));
    }
    // only the first layer of each stack has the table (has_relative_attention_bias); the others reuse its bias
    float[][] rel = new float[c.relative().buckets()][];
    try (NDArray table = tensor(s + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight",
        c.relative().buckets(), h)) {
      float[] flat = table.toFloatArray();
      for (int b = 0; b < rel.length; b++) {
        rel[b] = java.util.Arrays.copyOfRange(flat, b * h, (b + 1) * h);
      }
    }
    return new Stack(null, null, rel, layers, new Norm(tensor(s + ".final_layer_norm.weight", d), null));
  }

  private Attention t5Attention(String p, int d, int inner) {
    return new Attention(tensor(p + "q.weight", inner, d), null, tensor(p + "k.weight", inner, d), null,
        tensor(p + "v.weight", inner, d), null, tensor(p + "o.weight", d, inner), null);
  }

  private Stack bartStack(String s, boolean dec) {
    EncoderDecoderConfig c = config;
    int d = c.dModel();
    int f = dec ? c.decoderFf() : c.encoderFf();
    String base = infos.containsKey("model." + s + ".layernorm_embedding.weight") ? "model." + s : s;
    NDArray positions = tensor(base + ".embed_positions.weight", c.maxPositions() + EncoderDecoderConfig.BART_POSITION_OFFSET, d);
    Norm embNorm = bartNorm(base + ".layernorm_embedding.", d);
    Layer[] layers = new Layer[c.layers(dec)];
    for (int l = 0; l < layers.length; l++) {
      String p = base + ".layers." + l + ".";
      Attention self = bartAttention(p + "self_attn.", d);
      Norm selfNorm = bartNorm(p + "self_attn_layer_norm.", d);
      Attention cross = dec ? bartAttention(p + "encoder_attn.", d) : null;
      Norm crossNorm = dec ? bartNorm(p + "encoder_attn_layer_norm.", d) : null;
      layers[l] = new Layer(self, selfNorm, cross, crossNorm, tensor(p + "fc1.weight", f, d), tensor(p + "fc1.bias", f),
          null, tensor(p + "fc2.weight", d, f), tensor(p + "fc2.bias", d), bartNorm(p + "final_layer_norm.", d));
    }
    return new Stack(positions, embNorm, null, layers, null);
  }

  private Attention bartAttention(String p, int d) {
    return new Attention(tensor(p + "q_proj.weight", d, d), tensor(p + "q_proj.bias", d),
        tensor(p + "k_proj.weight", d, d), tensor(p + "k_proj.bias", d), tensor(p + "v_proj.weight", d, d),
        tensor(p + "v_proj.bias", d), tensor(p + "out_proj.weight", d, d), tensor(p + "out_proj.bias", d));
  }

  private Norm bartNorm(String p, int d) {
    return new Norm(tensor(p + "weight", d), tensor(p + "bias", d));
  }

  private NDArray tensor(String name, long... shape) {
    return tensor(new String[] {name}, shape);
  }

  /** The first of {@code names} the checkpoint has, of {@code shape}; else one line naming the first. */
  private NDArray tensor(String[] names, long... shape) {
    NDArray a = optional(names, shape);
    if (a == null) {
      throw new HeadScopeException(where + " has no tensor " + names[0] + ", which "
          + (config.family() == EncoderDecoderConfig.Family.T5 ? "a T5" : "a BART") + " of this config.json needs.");
    }
    return a;
  }

  private NDArray optional(String[] names, long... shape) {
    for (String name : names) {
      Safetensors.TensorInfo info = infos.get(name);
      if (info == null) {
        continue;
      }
      if (!java.util.Arrays.equals(info.shape(), shape)) {
        throw new HeadScopeException(where + ": tensor " + name + " has shape " + java.util.Arrays.toString(info.shape())
            + " but config.json asks for " + java.util.Arrays.toString(shape) + ".");
      }
      String dtype = info.dtype();
      if (!dtype.equals("F32") && !dtype.equals("F16") && !dtype.equals("BF16")) {
        throw new HeadScopeException(where + ": tensor " + name + " has dtype " + dtype
            + "; HeadScope reads weights stored as F32, F16 or BF16.");
      }
      ByteBuffer mapped = fileOf.get(name).bytes(info);
      try {
        ByteBuffer data = dtype.equals("F32") ? mapped : FloatWidening.toFloat32(mapped, dtype, info.elementCount());
        NDArray copy;
        try (NDArray wrapped = manager.create(data, new Shape(shape), DataType.FLOAT32)) {
          copy = wrapped.duplicate(); // nothing points into the memory-mapped file
        }
        try (NDArray sum = copy.sum()) {
          if (!Float.isFinite(sum.getFloat()) && FloatWidening.firstNonFinite(data) >= 0) {
            throw new HeadScopeException(where + ": tensor " + name + " holds NaN or infinite values: the checkpoint "
                + "is damaged, so its attention maps would be meaningless.");
          }
        }
        if (shape.length == 2 && shape[0] == 1) {
          NDArray row = copy.reshape(shape[1]); // final_logits_bias (1, V) as (V)
          copy.close();
          return row;
        }
        return copy;
      } finally {
        Safetensors.unmap(mapped);
      }
    }
    return null;
  }

  @Override
  public void close() {
    manager.close();
  }
}
