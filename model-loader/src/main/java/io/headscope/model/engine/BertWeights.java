package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.Family;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.core.Parts;
import io.headscope.model.checkpoint.FloatWidening;
import io.headscope.model.checkpoint.Safetensors;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A BERT's weights in native memory, owned by one long-lived {@link NDManager}.
 *
 * <p>Tensors are found by their Hugging Face names, with or without the {@code bert.} prefix that
 * {@code BertForMaskedLM} adds; a missing name or a wrong shape fails at load time, naming the tensor.
 * Linear weights stay in PyTorch's (out, in) layout: {@code torch.linear} takes them as they are.
 */
final class BertWeights implements AutoCloseable {

  /**
   * One layer. Q, K and V are fused into one (3d, d) projection: one GEMM instead of three; with grouped
   * queries ({@link io.headscope.model.core.Parts#keyValueHeads}) it is ((H + 2K) dh, d). A gated MLP's gate
   * and up projections are fused the same way into {@code ffnInWeight} (2f, d), gate first. Biases and
   * LayerNorm betas the family does not have (Llama's, RMSNorm's) are null.
   */
  record Layer(
      NDArray qkvWeight, NDArray qkvBias,
      NDArray outWeight, NDArray outBias,
      NDArray ln1Weight, NDArray ln1Bias,
      NDArray ffnInWeight, NDArray ffnInBias,
      NDArray ffnOutWeight, NDArray ffnOutBias,
      NDArray ln2Weight, NDArray ln2Bias,
      NDArray valueGram) {}

  final NDManager manager;
  final BertConfig config;
  final NDArray wordEmbeddings;
  /**
   * The LM head's decoder, (V, e): the word embeddings when tied ({@code tie_word_embeddings}, the
   * default), else the checkpoint's own {@code cls.predictions.decoder.weight} (GPT-2's {@code
   * lm_head.weight}), as transformers reads it; null without an LM head.
   */
  final NDArray decoder;
  final NDArray positionEmbeddings;
  /** Null for a family without token types (DistilBERT, GPT-2). */
  final NDArray tokenTypeEmbeddings;
  /** Null for a family without an embedding LayerNorm (GPT-2). */
  final NDArray embLnWeight;
  final NDArray embLnBias;
  /** The projection from the embedding width to the hidden width (ELECTRA, ALBERT); null when none. */
  final NDArray embProjWeight;
  final NDArray embProjBias;
  final Layer[] layers;
  /** The LayerNorm after the last layer of a pre-LayerNorm model (GPT-2's {@code ln_f}); null when none. */
  final NDArray finalLnWeight;
  final NDArray finalLnBias;
  /** Each layer's output projection split by head, {@code W_O^h}: (H, dh, d). */
  private final NDArray[] outWeightByHead;
  /**
   * Masked-LM head (null when the checkpoint is a bare BertModel or a classifier); GPT-2's LM head is the
   * word embeddings alone, so its transform and bias are null and {@link #hasMaskedLmHead} is true.
   */
  final NDArray mlmDenseWeight, mlmDenseBias, mlmLnWeight, mlmLnBias, mlmBias;
  /** Pooler and sequence-classification head (null when absent). */
  final NDArray poolerWeight, poolerBias, classifierWeight, classifierBias;

  private BertWeights(BertConfig config, NDManager manager, Map<String, NDArray> t, boolean tied) {
    this.config = config;
    this.manager = manager;
    int d = config.hiddenSize();
    int e = config.embeddingSize();
    Family family = config.family();
    Lookup w = new Lookup(t, family);
    Parts parts = config.parts();
    if (parts.rotaryDecoder()) {
      // the families whose parts come from their configs (Llama's kin, GPT-NeoX, ModernBERT): their own
      // layers, read in decoderLayer; no learned positions, no token types
      NDArray zeros = parts.norm() == Parts.Norm.LAYER_NORM_NO_BIAS ? manager.zeros(new Shape(d)) : null;
      wordEmbeddings = w.req("embeddings.word_embeddings.weight", config.vocabSize(), d);
      positionEmbeddings = null;
      tokenTypeEmbeddings = null;
      embProjWeight = embProjBias = null;
      embLnWeight = family.hasEmbeddingLayerNorm() ? gain(w, config, "embeddings.LayerNorm.weight") : null;
      embLnBias = family.hasEmbeddingLayerNorm() ? shift(w, config, "embeddings.LayerNorm.bias", zeros) : null;
      layers = new Layer[config.numHiddenLayers()];
      for (int l = 0; l < layers.length; l++) {
        layers[l] = decoderLayer(w, config, l, zeros);
      }
      outWeightByHead = byHead(layers, config);
      finalLnWeight = gain(w, config, "final.LayerNorm.weight");
      finalLnBias = shift(w, config, "final.LayerNorm.bias", zeros);
      poolerWeight = poolerBias = classifierWeight = classifierBias = null;
      if (parts.head() == Parts.Head.MASKED_LM) {
        // ModernBERT's head: dense (no bias), the activation, a norm, and the decoder (tied unless the config
        // says otherwise) with its bias; a bare ModernBertModel has none of it
        gptLmHead = false;
        // ModernBertForSequenceClassification has a head.dense and head.norm too (its pooling head) and a
        // classifier.weight beside them: read as a masked-LM head it would predict from a pooler
        boolean classifier = w.stored("classifier.weight");
        boolean hasMlm = w.has("cls.predictions.transform.dense.weight") && !classifier;
        if (classifier) { // its pooling head is not run, as no other family's classifier is (IGNORED)
          for (String n : new String[] {"cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
              "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.LayerNorm.bias"}) {
            w.get(n);
          }
        }
        decoder = !hasMlm ? null : tied ? wordEmbeddings : w.req("cls.predictions.decoder.weight", config.vocabSize(), d);
        mlmDenseWeight = hasMlm ? w.req("cls.predictions.transform.dense.weight", d, d) : null;
        mlmDenseBias = null;
        mlmLnWeight = hasMlm ? gain(w, config, "cls.predictions.transform.LayerNorm.weight") : null;
        mlmLnBias = hasMlm ? shift(w, config, "cls.predictions.transform.LayerNorm.bias", zeros) : null;
        mlmBias = hasMlm && w.has("cls.predictions.decoder.bias") ? w.req("cls.predictions.decoder.bias", config.vocabSize())
            : null;
        w.refuseUnknown();
        return;
      }
      gptLmHead = true;
      if (parts.head() == Parts.Head.TIED) {
        // tie_word_embeddings true: transformers' tie_weights makes the output embeddings the input ones, so a stored
        // copy (a GPT-NeoX's embed_out, a decoder's lm_head) is read past, not refused as unknown
        w.get("cls.predictions.decoder.weight");
      }
      decoder = parts.head() == Parts.Head.UNTIED ? w.req("cls.predictions.decoder.weight", config.vocabSize(), d)
          : wordEmbeddings;
      mlmDenseWeight = mlmDenseBias = mlmLnWeight = mlmLnBias = mlmBias = null;
      w.refuseUnknown();
      return;
    }
    wordEmbeddings = w.req("embeddings.word_embeddings.weight", config.vocabSize(), e);
    positionEmbeddings = w.req("embeddings.position_embeddings.weight", config.maxPositionEmbeddings(), e);
    tokenTypeEmbeddings = family.hasTokenTypes()
        ? w.req("embeddings.token_type_embeddings.weight", config.typeVocabSize(), e) : null;
    embLnWeight = family.hasEmbeddingLayerNorm() ? w.req("embeddings.LayerNorm.weight", e) : null;
    embLnBias = family.hasEmbeddingLayerNorm() ? w.req("embeddings.LayerNorm.bias", e) : null;
    // ALBERT always maps its embeddings in; ELECTRA only when they are narrower than the layers
    boolean projected = family == Family.ALBERT || family == Family.ELECTRA && e != d;
    embProjWeight = projected ? w.req("embeddings.projection.weight", d, e) : null;
    embProjBias = projected ? w.req("embeddings.projection.bias", d) : null;
    if (!projected && e != d) {
      throw new HeadScopeException("embedding_size " + e + " differs from hidden_size " + d + ", but a "
          + family.displayName + " has no projection between them.");
    }
    layers = new Layer[config.numHiddenLayers()];
    int f = config.intermediateSize();
    for (int l = 0; l < layers.length; l++) {
      String p = "encoder.layer." + l + ".";
      NDArray qkvWeight;
      NDArray qkvBias;
      if (family == Family.GPT2) {
        // c_attn is already the fused (3d, d) projection, queries then keys then values
        qkvWeight = w.req(p + "attention.self.qkv.weight", 3L * d, d);
        qkvBias = w.req(p + "attention.self.qkv.bias", 3L * d);
      } else {
        NDArray qw = w.req(p + "attention.self.query.weight", d, d);
        NDArray kw = w.req(p + "attention.self.key.weight", d, d);
        NDArray vw = w.req(p + "attention.self.value.weight", d, d);
        NDArray qb = w.req(p + "attention.self.query.bias", d);
        NDArray kb = w.req(p + "attention.self.key.bias", d);
        NDArray vb = w.req(p + "attention.self.value.bias", d);
        qkvWeight = ai.djl.ndarray.NDArrays.concat(new ai.djl.ndarray.NDList(qw, kw, vw), 0);
        qkvBias = ai.djl.ndarray.NDArrays.concat(new ai.djl.ndarray.NDList(qb, kb, vb), 0);
      }
      NDArray ow = w.req(p + "attention.output.dense.weight", d, d);
      layers[l] = new Layer(
          qkvWeight,
          qkvBias,
          ow, w.req(p + "attention.output.dense.bias", d),
          w.req(p + "attention.output.LayerNorm.weight", d), w.req(p + "attention.output.LayerNorm.bias", d),
          w.req(p + "intermediate.dense.weight", f, d), w.req(p + "intermediate.dense.bias", f),
          w.req(p + "output.dense.weight", d, f), w.req(p + "output.dense.bias", d),
          w.req(p + "output.LayerNorm.weight", d), w.req(p + "output.LayerNorm.bias", d),
          valueGram(ow, config));
    }
    outWeightByHead = byHead(layers, config);
    finalLnWeight = family.preLayerNorm() ? w.req("final.LayerNorm.weight", d) : null;
    finalLnBias = family.preLayerNorm() ? w.req("final.LayerNorm.bias", d) : null;
    boolean hasMlm = w.has("cls.predictions.transform.dense.weight");
    gptLmHead = family == Family.GPT2;
    if (tied || !(hasMlm || gptLmHead)) {
      decoder = hasMlm || gptLmHead ? wordEmbeddings : null; // a stored copy of tied weights is not read, as in transformers
    } else if (!w.has("cls.predictions.decoder.weight")) {
      List<WeightNames.Source> where = WeightNames.sources(family, "cls.predictions.decoder.weight");
      throw new HeadScopeException("config.json says tie_word_embeddings false, but the checkpoint has no tensor "
          + (where.isEmpty() ? "cls.predictions.decoder.weight" : where.get(0).name()) + ": the output embeddings "
          + "were not saved, so the predictions cannot be made.");
    } else {
      decoder = w.req("cls.predictions.decoder.weight", config.vocabSize(), e); // untied: the head's own weights
    }
    mlmDenseWeight = hasMlm ? w.req("cls.predictions.transform.dense.weight", e, d) : null;
    mlmDenseBias = hasMlm ? w.req("cls.predictions.transform.dense.bias", e) : null;
    mlmLnWeight = hasMlm ? w.req("cls.predictions.transform.LayerNorm.weight", e) : null;
    mlmLnBias = hasMlm ? w.req("cls.predictions.transform.LayerNorm.bias", e) : null;
    mlmBias = hasMlm
        ? (w.has("cls.predictions.bias")
            ? w.req("cls.predictions.bias", config.vocabSize())
            : w.req("cls.predictions.decoder.bias", config.vocabSize()))
        : null;
    boolean hasPooler = w.has("pooler.dense.weight") && w.has("pooler.dense.bias");
    poolerWeight = hasPooler ? w.req("pooler.dense.weight", d, d) : null;
    poolerBias = hasPooler ? w.req("pooler.dense.bias", d) : null;
    boolean hasClassifier = hasPooler && w.has("classifier.weight");
    int labels = hasClassifier ? (int) w.get("classifier.weight").getShape().get(0) : 0;
    classifierWeight = hasClassifier ? w.req("classifier.weight", labels, d) : null;
    classifierBias = hasClassifier ? w.req("classifier.bias", labels) : null;
    w.refuseUnknown();
  }

  /** Each layer's output projection split by head, {@code W_O^h}: (H, dh, d). */
  private static NDArray[] byHead(Layer[] layers, BertConfig config) {
    NDArray[] out = new NDArray[layers.length];
    for (int l = 0; l < layers.length; l++) {
      try (NDArray woT = layers[l].outWeight().transpose()) {
        out[l] = woT.reshape(config.numAttentionHeads(), config.headSize(), config.hiddenSize()); // a copy
      }
    }
    return out;
  }

  /**
   * The parts concatenated along rows, each part freed at once: a layer's q, k, v and its gate and up
   * projections exist twice only until their fused copy is made, not until the whole model is loaded (a
   * TinyLlama's gate and up projections are 2 GB: its load peaked at 7.1 GB for 4.4 GB of weights).
   */
  private static NDArray fused(NDArray... parts) {
    NDArray out = ai.djl.ndarray.NDArrays.concat(new ai.djl.ndarray.NDList(parts), 0);
    for (NDArray a : parts) {
      a.close();
    }
    return out;
  }

  /**
   * A layer of a configured family. Llama's kin: {@code q_proj} (H dh, d), {@code k_proj} and {@code v_proj} (K dh,
   * d), biases where the family has them (Qwen2: q, k, v), {@code o_proj} (d, H dh), the RMSNorm scales, and the
   * SwiGLU projections without biases. GPT-NeoX: the fused {@code query_key_value} ((3 H dh, d), biased), whose rows
   * come per head, {@code [q_h, k_h, v_h]} for h = 0..H-1 (transformers views its output as {@code [heads, 3 *
   * head_size]}); they are reordered here once into the engine's {@code [Q; K; V]}, so the forward pass splits
   * every family's product the same way. ModernBERT: the fused {@code Wqkv}, already {@code [Q; K; V]} ({@code
   * view(.., 3, heads, head_dim)}), no attention norm in layer 0 (null: the identity), and {@code Wi}, the GeGLU's
   * two halves fused with the activated one first, as the engine fuses gate and up.
   */
  private static Layer decoderLayer(Lookup w, BertConfig config, int l, NDArray zeros) {
    Parts parts = config.parts();
    int d = config.hiddenSize();
    int f = config.intermediateSize();
    int h = config.numAttentionHeads();
    int dh = config.headSize();
    long q = (long) h * dh;
    long kv = (long) parts.keyValueHeads() * dh;
    String p = "encoder.layer." + l + ".";
    NDArray qkvWeight;
    NDArray qkvBias;
    if (!WeightNames.sources(config.family(), p + "attention.self.qkv.weight").isEmpty()) {
      qkvWeight = w.req(p + "attention.self.qkv.weight", q + 2 * kv, d);
      qkvBias = parts.qkvBias() ? w.req(p + "attention.self.qkv.bias", q + 2 * kv) : null;
      if (config.family() == io.headscope.model.core.Family.GPT_NEOX) {
        // (H, 3, dh, d) to (3, H, dh, d): reshaping a transposed view copies it into row-major memory
        qkvWeight = perHead(qkvWeight, new Shape(h, 3, dh, d), 1, 0, 2, 3);
        qkvBias = qkvBias == null ? null : perHead(qkvBias, new Shape(h, 3, dh), 1, 0, 2);
      }
    } else {
      qkvWeight = fused(
          w.req(p + "attention.self.query.weight", q, d), w.req(p + "attention.self.key.weight", kv, d),
          w.req(p + "attention.self.value.weight", kv, d)); // ((H + 2K) dh, d)
      qkvBias = parts.qkvBias() ? fused(
          w.req(p + "attention.self.query.bias", q), w.req(p + "attention.self.key.bias", kv),
          w.req(p + "attention.self.value.bias", kv)) : null;
    }
    NDArray ow = w.req(p + "attention.output.dense.weight", d, q);
    NDArray ffnIn;
    NDArray ffnInBias = null;
    NDArray ffnOutBias = null;
    if (!parts.gated()) { // GPT-NeoX: dense_h_to_4h and dense_4h_to_h, with biases
      ffnIn = w.req(p + "intermediate.dense.weight", f, d);
      ffnInBias = w.req(p + "intermediate.dense.bias", f);
      ffnOutBias = w.req(p + "output.dense.bias", d);
    } else if (WeightNames.sources(config.family(), p + "intermediate.gate.weight").isEmpty()) {
      ffnIn = w.req(p + "intermediate.dense.weight", 2L * f, d); // ModernBERT's Wi: (2f, d), activated half first
    } else {
      ffnIn = fused(
          w.req(p + "intermediate.gate.weight", f, d), w.req(p + "intermediate.dense.weight", f, d)); // (2f, d)
    }
    // ModernBERT's first layer: attn_norm is nn.Identity (the embeddings were just normalised)
    boolean identity = l == 0 && config.family() == io.headscope.model.core.Family.MODERNBERT;
    return new Layer(qkvWeight, qkvBias,
        ow, parts.outBias() ? w.req(p + "attention.output.dense.bias", d) : null,
        identity ? null : gain(w, config, p + "attention.output.LayerNorm.weight"),
        identity ? null : shift(w, config, p + "attention.output.LayerNorm.bias", zeros),
        ffnIn, ffnInBias,
        w.req(p + "output.dense.weight", d, f), ffnOutBias,
        gain(w, config, p + "output.LayerNorm.weight"), shift(w, config, p + "output.LayerNorm.bias", zeros),
        valueGram(ow, config));
  }

  /** {@code a} viewed as {@code split}, its axes swapped as {@code axes}, in its own row-major memory, flat again. */
  private static NDArray perHead(NDArray a, Shape split, int... axes) {
    try (NDArray view = a.reshape(split); NDArray swapped = view.transpose(axes)) {
      return swapped.reshape(a.getShape()); // reshaping a transposed view copies it
    }
  }

  /**
   * A norm's shift: a LayerNorm's stored bias, zeros for ModernBERT's bias-free LayerNorm (adding 0 changes no
   * value), and none for an RMSNorm.
   */
  private static NDArray shift(Lookup w, BertConfig config, String name, NDArray zeros) {
    return switch (config.parts().norm()) {
      case LAYER_NORM -> w.req(name, config.hiddenSize());
      case LAYER_NORM_NO_BIAS -> zeros;
      default -> null;
    };
  }

  /**
   * An RMSNorm's scale: the stored weight, or for Gemma's norm {@code 1 + w}, added once here in float32
   * as {@code GemmaRMSNorm} adds it on every call ({@code 1.0 + self.weight.float()}), the same rounding.
   */
  private static NDArray gain(Lookup w, BertConfig config, String name) {
    NDArray g = w.req(name, config.hiddenSize());
    return config.parts().norm() == Parts.Norm.RMS_NORM_UNIT_OFFSET ? g.add(Scalars.of(g, 1f)) : g;
  }

  /**
   * Per-head Gram matrices {@code G_h = W_O^h (W_O^h)^T}, (H, dh, dh), where {@code W_O^h} is the
   * (dh, d) slice of the output projection that head h's values pass through. With them
   * {@code ||f^h(x_j)||^2 = v_j G_h v_j^T} (Kobayashi et al.) costs dh^2 per token instead of dh·d,
   * and the (B, H, T, d) tensor of transformed vectors is never built.
   */
  private static NDArray valueGram(NDArray outWeight, BertConfig c) {
    int h = c.numAttentionHeads();
    int dh = c.headSize();
    // outWeight is (d_out, d_in); head h owns input columns [h*dh, (h+1)*dh).
    try (NDArray wo = outWeight.transpose().reshape(h, dh, c.hiddenSize())) { // (H, dh, d), a copy
      return wo.matMul(wo.transpose(0, 2, 1)); // (H, dh, dh)
    }
  }

  /**
   * The head-wise transformed values {@code f^h(x_j) = v^h_j W_O^h} (Kobayashi et al.), from the
   * values v (B, H, T, dh) of layer {@code l}: (B, H, T, d). The output bias is not included.
   */
  NDArray transformedValues(int l, NDArray v) {
    return v.matMul(outWeightByHead[l]); // (B, H, T, dh) x (H, dh, d) = (B, H, T, d)
  }

  /**
   * Loads and checks every tensor the config calls for; float16/bfloat16 are widened to float32 in
   * Java (see {@link FloatWidening}). Every float tensor is checked for NaN and infinity, and the
   * last layer the config asks for is looked up before anything is allocated.
   */
  static BertWeights load(BertConfig config, Safetensors file, NDManager parent) {
    return load(config, file, parent, true, arrays -> { });
  }

  /** {@link #load}, with the output embeddings tied to the word embeddings or read as stored ({@code tied} false). */
  static BertWeights load(BertConfig config, Safetensors file, NDManager parent, boolean tied) {
    return load(config, file, parent, tied, arrays -> { });
  }

  /**
   * {@link #load}, with {@code amend} seeing the tensors by their checkpoint names before the model is
   * built from them: fine-tuning adds a new classifier head there ({@link Trainer}). Arrays it puts
   * must be created in the map's manager (that of any array in it).
   */
  static BertWeights load(BertConfig config, Safetensors file, NDManager parent,
      java.util.function.Consumer<Map<String, NDArray>> amend) {
    return load(config, file, parent, true, amend);
  }

  private static BertWeights load(BertConfig config, Safetensors file, NDManager parent, boolean tied,
      java.util.function.Consumer<Map<String, NDArray>> amend) {
    return load(config, List.of(file), file.file(), parent, tied, amend);
  }

  /**
   * {@link #load} from the shards of one checkpoint ({@code model-00001-of-00002.safetensors}, ...), each
   * read, widened and copied in turn; {@code where} names the checkpoint in messages (its index file).
   */
  static BertWeights load(BertConfig config, List<Safetensors> files, java.nio.file.Path where, NDManager parent,
      boolean tied, java.util.function.Consumer<Map<String, NDArray>> amend) {
    Map<String, Safetensors.TensorInfo> infos = new java.util.LinkedHashMap<>();
    Map<String, Safetensors> fileOf = new HashMap<>();
    for (Safetensors f : files) {
      for (Safetensors.TensorInfo info : f.tensors().values()) {
        if (infos.put(info.name(), info) != null) {
          throw new HeadScopeException(where + ": tensor " + info.name() + " is stored in two shards.");
        }
        fileOf.put(info.name(), f);
      }
    }
    for (Safetensors.TensorInfo info : infos.values()) {
      boolean isFloat = switch (info.dtype()) {
        case "F32", "F16", "BF16" -> true;
        default -> false;
      };
      if (!isFloat && (info.name().endsWith(".weight") || info.name().endsWith(".bias")) && !CAUSAL_BUFFER.matcher(info.name()).matches()) {
        throw new HeadScopeException(where + ": tensor " + info.name() + " has dtype " + info.dtype()
            + "; HeadScope reads weights stored as F32, F16 or BF16.");
      }
    }
    // the last layer's second norm: its bias, or an RMSNorm's scale (it has no bias)
    List<WeightNames.Source> lastLayer = WeightNames.sources(config.family(), "encoder.layer."
        + (config.numHiddenLayers() - 1) + ".output.LayerNorm." + (config.parts().normBias() ? "bias" : "weight"));
    if (lastLayer.stream().noneMatch(s -> infos.containsKey(s.name()))) {
      throw new HeadScopeException(where + ": the config asks for " + config.numHiddenLayers()
          + " layers (num_hidden_layers) but the checkpoint has no tensor " + lastLayer.get(0).name() + " (nor "
          + lastLayer.get(1).name() + ").");
    }
    NDManager manager = parent.newSubManager();
    try {
      Map<String, NDArray> arrays = new HashMap<>();
      for (Safetensors.TensorInfo info : infos.values()) {
        String dtype = info.dtype();
        if (!dtype.equals("F32") && !dtype.equals("F16") && !dtype.equals("BF16")) {
          continue; // integer buffers such as position_ids: not weights
        }
        if (CAUSAL_BUFFER.matcher(info.name()).matches()) {
          continue; // GPT-2's and GPT-NeoX's causal-mask buffers (n_positions^2 each): the engine builds its own mask
        }
        ByteBuffer mapped = fileOf.get(info.name()).bytes(info);
        try {
          ByteBuffer data = dtype.equals("F32") ? mapped : FloatWidening.toFloat32(mapped, dtype, info.elementCount());
          // DJL wraps a direct buffer without copying; duplicate() copies into torch's own memory so that
          // nothing points into the memory-mapped file (a file replaced on disk must not crash the app).
          NDArray copy;
          try (NDArray wrapped = manager.create(data, new Shape(info.shape()), DataType.FLOAT32)) {
            copy = wrapped.duplicate();
          }
          arrays.put(info.name(), copy);
          long bad = allFinite(copy) ? -1 : FloatWidening.firstNonFinite(data);
          if (bad >= 0) {
            // only on this path is the element found, in Java: a scan of 110 M floats there cost ~150 ms a load
            float v = data.duplicate().order(data.order()).asFloatBuffer().get((int) bad);
            throw new HeadScopeException("tensor " + info.name() + " holds " + v + " at element " + bad + " of "
                + info.elementCount() + ": the checkpoint is damaged (or was saved after training diverged), "
                + "so its attention maps would be meaningless.");
          }
        } finally {
          Safetensors.unmap(mapped); // copied: the file's pages need not stay resident
        }
      }
      amend.accept(arrays);
      BertWeights w = new BertWeights(config, manager, arrays, tied);
      java.util.Set<NDArray> kept = w.retained();
      arrays.values().stream().filter(a -> !kept.contains(a)).forEach(NDArray::close);
      return w;
    } catch (HeadScopeException e) {
      manager.close();
      throw new HeadScopeException(where + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  /**
   * Whether no element is NaN or infinite. One pass: a sum is finite exactly when every element is,
   * unless finite values overflow it (weights near 3e38), and then the caller's exact scan decides.
   * Masks (isNaN, isInfinite) cost four passes over the 440 MB and were measured slower at load.
   */
  private static boolean allFinite(NDArray a) {
    try (NDArray sum = a.sum()) {
      return Float.isFinite(sum.getFloat());
    }
  }

  /** Every array the model keeps; the rest of what was loaded (e.g. the unfused Q, K, V) is closed. */
  private java.util.Set<NDArray> retained() {
    java.util.Set<NDArray> kept = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    kept.addAll(java.util.Arrays.asList(wordEmbeddings, decoder, positionEmbeddings, tokenTypeEmbeddings,
        embLnWeight, embLnBias, embProjWeight, embProjBias, finalLnWeight, finalLnBias, mlmDenseWeight, mlmDenseBias, mlmLnWeight, mlmLnBias, mlmBias,
        poolerWeight, poolerBias, classifierWeight, classifierBias));
    kept.addAll(java.util.Arrays.asList(outWeightByHead));
    for (Layer l : layers) {
      kept.addAll(java.util.Arrays.asList(l.qkvWeight(), l.qkvBias(), l.outWeight(), l.outBias(), l.ln1Weight(), l.ln1Bias(), l.ffnInWeight(),
          l.ffnInBias(), l.ffnOutWeight(), l.ffnOutBias(), l.ln2Weight(), l.ln2Bias()));
    }
    return kept;
  }

  BertConfig config() {
    return config;
  }

  /**
   * Every array a sequence classifier is made of, under Hugging Face's {@code BertForSequenceClassification}
   * names, in checkpoint order; a layer's fused query/key/value projection appears once, as
   * {@code bert.encoder.layer.N.attention.self.qkv.weight} / {@code .bias} (split on saving). The
   * masked-LM head is not part of it.
   */
  Map<String, NDArray> classifierParameters() {
    Map<String, NDArray> p = new java.util.LinkedHashMap<>();
    p.put("bert.embeddings.word_embeddings.weight", wordEmbeddings);
    p.put("bert.embeddings.position_embeddings.weight", positionEmbeddings);
    p.put("bert.embeddings.token_type_embeddings.weight", tokenTypeEmbeddings);
    p.put("bert.embeddings.LayerNorm.weight", embLnWeight);
    p.put("bert.embeddings.LayerNorm.bias", embLnBias);
    for (int l = 0; l < layers.length; l++) {
      Layer y = layers[l];
      String n = "bert.encoder.layer." + l + ".";
      p.put(n + "attention.self.qkv.weight", y.qkvWeight());
      p.put(n + "attention.self.qkv.bias", y.qkvBias());
      p.put(n + "attention.output.dense.weight", y.outWeight());
      p.put(n + "attention.output.dense.bias", y.outBias());
      p.put(n + "attention.output.LayerNorm.weight", y.ln1Weight());
      p.put(n + "attention.output.LayerNorm.bias", y.ln1Bias());
      p.put(n + "intermediate.dense.weight", y.ffnInWeight());
      p.put(n + "intermediate.dense.bias", y.ffnInBias());
      p.put(n + "output.dense.weight", y.ffnOutWeight());
      p.put(n + "output.dense.bias", y.ffnOutBias());
      p.put(n + "output.LayerNorm.weight", y.ln2Weight());
      p.put(n + "output.LayerNorm.bias", y.ln2Bias());
    }
    p.put("bert.pooler.dense.weight", poolerWeight);
    p.put("bert.pooler.dense.bias", poolerBias);
    p.put("classifier.weight", classifierWeight);
    p.put("classifier.bias", classifierBias);
    return p;
  }

  Layer layer(int l) {
    return layers[l];
  }

  boolean hasMaskedLmHead() {
    return mlmDenseWeight != null || gptLmHead;
  }

  /**
   * An LM head without a transform or bias, {@code W_U norm_f(x)}: GPT-2's (tied) and the rotary
   * decoders' (tied or untied).
   */
  final boolean gptLmHead;

  boolean hasClassifier() {
    return classifierWeight != null;
  }

  int classifierLabels() {
    return classifierWeight == null ? 0 : (int) classifierWeight.getShape().get(0);
  }

  @Override
  public void close() {
    manager.close();
  }

  /**
   * Weights a checkpoint may hold that the forward pass does not need: buffers (position ids, GPT-2's
   * causal mask), copies of tied output embeddings, the pre-training heads HeadScope does not run (next
   * sentence, sentence order, ELECTRA's discriminator), and task heads (poolers and classifiers of the
   * other families, which {@code BertModel#unreadClassifier} names; question answering).
   */
  private static final java.util.regex.Pattern IGNORED = java.util.regex.Pattern.compile(String.join("|",
      ".*position_ids", ".*\\.(attn|attention)\\.(masked_)?bias", ".*rotary_emb\\.inv_freq",
      "(cls\\.predictions\\.|lm_head\\.|predictions\\.)?decoder\\.(weight|bias)", "lm_head\\.weight",
      "vocab_projector\\.weight", "generator_lm_head\\.weight",
      "cls\\.seq_relationship\\..*", "sop_classifier\\..*", "discriminator_predictions\\..*", "qa_outputs\\..*",
      "(pre_)?classifier\\..*", "(.+\\.)?pooler(\\..*)?"));

  /** GPT-2's ({@code h.N.attn.bias}) and old GPT-NeoX checkpoints' ({@code layers.N.attention.bias}) mask buffers. */
  private static final java.util.regex.Pattern CAUSAL_BUFFER =
      java.util.regex.Pattern.compile(".*\\.(attn|attention)\\.(masked_)?bias");

  /**
   * Finds a tensor by its BERT name wherever the family stores it ({@link WeightNames}), checking its
   * shape; GPT-2's Conv1D weights come transposed to PyTorch's (out, in).
   */
  private static final class Lookup {
    private final Map<String, NDArray> t;
    private final Family family;
    /** The checkpoint's names that were looked up. */
    private final java.util.Set<String> read = new java.util.HashSet<>();
    /** Transposed copies made so far, by source name: an ALBERT asks for its one layer once per layer. */
    private final Map<String, NDArray> transposed = new HashMap<>();

    Lookup(Map<String, NDArray> t, Family family) {
      this.t = t;
      this.family = family;
    }

    boolean has(String name) {
      return get(name) != null;
    }

    /** Whether the checkpoint holds a tensor of this very name (no family's names applied). */
    boolean stored(String checkpointName) {
      return t.containsKey(checkpointName);
    }

    /**
     * Refuses weights the forward pass does not read, beyond the known ones it need not: a tensor of an
     * unknown name may belong to a variant of the family HeadScope does not implement (relative position
     * embeddings, an extra norm), and running without it would give wrong maps without a word.
     */
    void refuseUnknown() {
      List<String> unknown = t.keySet().stream().filter(n -> !read.contains(n) && !IGNORED.matcher(n).matches())
          .sorted().toList();
      if (!unknown.isEmpty()) {
        throw new HeadScopeException("tensor " + unknown.get(0) + (unknown.size() > 1 ? " (and " + (unknown.size() - 1)
            + " more)" : "") + " is not a weight of " + family.withArticle() + " as HeadScope runs it: the checkpoint "
            + "may be a variant of the family that HeadScope does not implement, so its maps would be wrong.");
      }
    }

    /**
     * {@code a^T} in its own row-major memory: a clone of a transposed view keeps the transposed strides,
     * and the products then read the weight column by column; flattening forces the copy into rows.
     */
    private static NDArray contiguousTranspose(NDArray a) {
      Shape t = new Shape(a.getShape().get(1), a.getShape().get(0));
      try (NDArray view = a.transpose(); NDArray flat = view.reshape(-1)) {
        return flat.reshape(t).duplicate();
      }
    }

    NDArray get(String name) {
      for (WeightNames.Source s : WeightNames.sources(family, name)) {
        NDArray a = t.get(s.name());
        if (a != null) {
          read.add(s.name());
          return s.transposed() ? transposed.computeIfAbsent(s.name(), k -> contiguousTranspose(a)) : a;
        }
      }
      return null;
    }

    NDArray req(String name, long... shape) {
      NDArray a = get(name);
      if (a == null) {
        List<WeightNames.Source> where = WeightNames.sources(family, name);
        String first = where.isEmpty() ? name : where.get(0).name();
        String nor = where.size() < 2 ? "" : " (nor " + where.get(1).name() + ")";
        throw new HeadScopeException("the checkpoint has no tensor " + first + nor + ".");
      }
      if (!Arrays.equals(a.getShape().getShape(), shape)) {
        throw new HeadScopeException("tensor " + name + " has shape " + a.getShape()
            + " but the config needs " + new Shape(shape) + ".");
      }
      return a;
    }
  }
}
