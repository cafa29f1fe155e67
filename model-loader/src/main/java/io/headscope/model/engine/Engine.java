package io.headscope.model.engine;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;

/**
 * The one entry point into the forward pass: {@link #run} (TransformerLens's {@code run_with_hooks}
 * and {@code run_with_cache} in one call) and {@link #gradient}. The only class whose callers see the
 * tensors' results, and they see them as Java arrays.
 *
 * <p>Memory has one owner: {@link #manager} holds the weights for the engine's life; every call runs
 * in a sub-manager that is closed before the call returns, each layer of a forward pass in a
 * sub-manager of its own. Safe to call from one thread at a time.
 */
public final class Engine implements AutoCloseable {
  private static final String ENGINE = "PyTorch";

  private final NDManager manager;
  private final BertWeights weights;
  private final BertEncoder encoder;

  private Engine(NDManager manager, BertWeights weights) {
    this.manager = manager;
    this.weights = weights;
    this.encoder = new BertEncoder(weights);
  }

  /** Loads and checks the weights of a checkpoint into native memory, the output embeddings tied. */
  public static Engine load(BertConfig config, Safetensors file) {
    return load(config, file, true);
  }

  /**
   * Loads and checks the weights of a checkpoint into native memory.
   *
   * @param tiedWordEmbeddings whether the LM head's decoder is the word embeddings ({@code
   *     tie_word_embeddings}, {@link io.headscope.model.core.ConfigFields#tiedWordEmbeddings}) or its
   *     own stored weights
   */
  public static Engine load(BertConfig config, Safetensors file, boolean tiedWordEmbeddings) {
    NDManager manager = NDManager.newBaseManager(Device.cpu(), ENGINE);
    try {
      return new Engine(manager, BertWeights.load(config, file, manager, tiedWordEmbeddings));
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  /** Loads and checks the weights of a checkpoint stored in shards ({@code where}: its index, for messages). */
  public static Engine load(BertConfig config, List<Safetensors> shards, java.nio.file.Path where,
      boolean tiedWordEmbeddings) {
    NDManager manager = NDManager.newBaseManager(Device.cpu(), ENGINE);
    try {
      return new Engine(manager, BertWeights.load(config, shards, where, manager, tiedWordEmbeddings, arrays -> { }));
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  public BertConfig config() {
    return weights.config;
  }

  public boolean hasMaskedLmHead() {
    return weights.hasMaskedLmHead();
  }

  public boolean hasClassifier() {
    return weights.hasClassifier();
  }

  public int classifierLabels() {
    return weights.classifierLabels();
  }

  /**
   * Whether an input's numbers here are bit-identical however it is batched with inputs of its length
   * (alone, at any place in a batch, in any shard; padding is not covered): see {@link BatchInvariance}.
   * Measured once per process.
   */
  public boolean batchInvariant() {
    return BatchInvariance.holds(manager);
  }

  /** libtorch's intra-op parallelism off for the calling thread (see {@code BertModel.runOnThisThreadOnly}). */
  public static void runOnThisThreadOnly() {
    ai.djl.pytorch.jni.JniUtils.setNumThreads(1);
  }

  /** Native arrays alive now: the weights, plus anything a call failed to free (tests, soak). */
  public long liveNativeArrays() {
    return countResources(manager);
  }

  /**
   * The final norm and the decoder rows of {@code tokens}, for a pre-norm decoder whose head is
   * {@code W_U norm(x)}: GPT-2's and GPT-NeoX's LayerNorm, the rotary decoders' RMSNorm; null for a model whose
   * head is not that (post-LayerNorm, or a masked-LM head with a transform).
   */
  public UnembedWeights unembedWeights(long... tokens) {
    boolean rms = config().parts().rms();
    if (weights.finalLnWeight == null || !weights.gptLmHead || (weights.finalLnBias == null && !rms)) {
      return null;
    }
    float[][] rows = new float[tokens.length][];
    for (int i = 0; i < tokens.length; i++) {
      try (NDArray row = weights.decoder.get(tokens[i])) {
        rows[i] = row.toFloatArray();
      }
    }
    float[] gamma = weights.finalLnWeight.toFloatArray();
    return new UnembedWeights(rms, gamma, rms ? new float[gamma.length] : weights.finalLnBias.toFloatArray(),
        config().layerNormEps(), rows, new float[tokens.length]);
  }

  /**
   * The LayerNorms and masked-LM head of a post-LayerNorm model with the decoder rows of {@code tokens},
   * for direct logit attribution; null for a model without them (GPT-2, or no masked-LM head).
   */
  public PostLayerNormWeights postLayerNormWeights(long... tokens) {
    if (weights.config.family().preLayerNorm() || weights.mlmDenseWeight == null) {
      return null;
    }
    int layers = weights.layers.length;
    float[][] g1 = new float[layers][];
    float[][] b1 = new float[layers][];
    float[][] g2 = new float[layers][];
    float[][] b2 = new float[layers][];
    for (int l = 0; l < layers; l++) {
      BertWeights.Layer p = weights.layers[l];
      g1[l] = p.ln1Weight().toFloatArray();
      b1[l] = p.ln1Bias().toFloatArray();
      g2[l] = p.ln2Weight().toFloatArray();
      b2[l] = p.ln2Bias().toFloatArray();
    }
    float[][] dense = mlmDenseRows();
    float[][] rows = new float[tokens.length][];
    float[] bias = new float[tokens.length];
    for (int i = 0; i < tokens.length; i++) {
      try (NDArray row = weights.decoder.get(tokens[i]); NDArray b = weights.mlmBias.get(tokens[i])) {
        rows[i] = row.toFloatArray();
        bias[i] = b.getFloat();
      }
    }
    return new PostLayerNormWeights(g1, b1, g2, b2, config().layerNormEps(), dense, weights.mlmDenseBias.toFloatArray(),
        weights.mlmLnWeight.toFloatArray(), weights.mlmLnBias.toFloatArray(), rows, bias);
  }

  /** The masked-LM head's transform weight (embedding size x hidden) as rows, for the attribution weights above. */
  private float[][] mlmDenseRows() {
    int e = config().embeddingSize();
    int d = config().hiddenSize();
    float[] flat = weights.mlmDenseWeight.toFloatArray();
    float[][] dense = new float[e][];
    for (int i = 0; i < e; i++) {
      dense[i] = java.util.Arrays.copyOfRange(flat, i * d, (i + 1) * d);
    }
    return dense;
  }

  /**
   * The final norm and masked-LM head of a pre-norm encoder (ModernBERT: final_norm, then head.dense, the
   * activation, head.norm and the tied decoder) with the decoder rows of {@code tokens}, for direct logit
   * attribution; null for any other model (post-LayerNorm encoders: {@link #postLayerNormWeights}; GPT-2: {@link
   * #unembedWeights}; RMSNorm decoders and a ModernBERT without its masked-LM head: none).
   */
  public PreNormMaskedLmWeights preNormMaskedLmWeights(long... tokens) {
    if (!weights.config.family().preLayerNorm() || weights.mlmDenseWeight == null || weights.finalLnWeight == null
        || weights.finalLnBias == null || config().parts().rms()) {
      return null;
    }
    int e = config().embeddingSize();
    float[][] dense = mlmDenseRows();
    float[][] rows = new float[tokens.length][];
    float[] bias = new float[tokens.length];
    for (int i = 0; i < tokens.length; i++) {
      try (NDArray row = weights.decoder.get(tokens[i])) {
        rows[i] = row.toFloatArray();
      }
      if (weights.mlmBias != null) { // decoder_bias false: no bias
        try (NDArray b = weights.mlmBias.get(tokens[i])) {
          bias[i] = b.getFloat();
        }
      }
    }
    float[][] none = new float[0][];
    PostLayerNormWeights head = new PostLayerNormWeights(none, none, none, none, config().layerNormEps(), dense,
        weights.mlmDenseBias == null ? new float[e] : weights.mlmDenseBias.toFloatArray(),
        weights.mlmLnWeight.toFloatArray(), weights.mlmLnBias == null ? new float[e] : weights.mlmLnBias.toFloatArray(),
        rows, bias);
    return new PreNormMaskedLmWeights(weights.finalLnWeight.toFloatArray(), weights.finalLnBias.toFloatArray(),
        config().layerNormEps(), head);
  }

  /**
   * Each layer's two norms as plain Java ({@link LayerNormWeights}): LayerNorms (BERT's kin, GPT-2, GPT-NeoX,
   * ModernBERT's without shift) or RMSNorms (Llama's kin, Gemma's scale {@code 1 + w} as the engine holds it).
   * Post-LayerNorm: {@code ln1} after the attention, {@code ln2} after the MLP; pre-norm: {@code ln1} before the
   * attention, {@code ln2} before the MLP (null for a layer without one: ModernBERT's first attention).
   */
  public LayerNormWeights layerNormWeights() {
    int layers = weights.layers.length;
    float[][] g1 = new float[layers][];
    float[][] b1 = new float[layers][];
    float[][] g2 = new float[layers][];
    float[][] b2 = new float[layers][];
    for (int l = 0; l < layers; l++) {
      BertWeights.Layer p = weights.layers[l];
      g1[l] = floats(p.ln1Weight());
      b1[l] = floats(p.ln1Bias());
      g2[l] = floats(p.ln2Weight());
      b2[l] = floats(p.ln2Bias());
    }
    boolean pre = config().parts().place() == io.headscope.model.core.Parts.NormPlace.PRE;
    return new LayerNormWeights(g1, b1, g2, b2, config().layerNormEps(), pre, config().parts().rms());
  }

  /**
   * Every layer's MLP input weight as plain Java, (out, in) row-major: (f, d) for a GELU MLP (GPT-NeoX's {@code
   * dense_h_to_4h}), the gate's and up's (2f, d) for a gated one. What edge attribution carries an MLP's
   * pre-activation gradient to its input with.
   */
  public float[][] mlpInWeights() {
    float[][] out = new float[weights.layers.length][];
    for (int l = 0; l < out.length; l++) {
      out[l] = weights.layers[l].ffnInWeight().toFloatArray();
    }
    return out;
  }

  private static float[] floats(NDArray a) {
    return a == null ? null : a.toFloatArray();
  }

  /**
   * Every layer's fused query, key and value weight as plain Java, in the checkpoint's (out, in) layout: ((H + 2K)
   * dh, d) row-major, the rows {@code [Q; K; V]} with head h's query rows {@code h dh .. (h + 1) dh} and key/value
   * head g's rows {@code g dh .. (g + 1) dh} of their blocks (K = H but for grouped queries; GPT-NeoX's per-head
   * layout already reordered at load). Row {@code j} of a head's block is column j of its {@code W^h}: what edge
   * attribution multiplies a gradient by.
   */
  public float[][] qkvWeights() {
    float[][] out = new float[weights.layers.length][];
    for (int l = 0; l < out.length; l++) {
      out[l] = weights.layers[l].qkvWeight().toFloatArray();
    }
    return out;
  }

  /** Every head's {@code W_Q, W_K, W_V, W_O} as plain Java, row-vector convention, no biases ({@link HeadWeights}). */
  public HeadWeights headWeights() {
    if ((long) config().numAttentionHeads() * config().headSize() != config().hiddenSize()) {
      throw new HeadScopeException("Head weights (composition scores, edge attribution) need heads that split the "
          + "hidden size; this model has " + config().numAttentionHeads() + " heads of head_dim " + config().headSize()
          + " over a hidden size of " + config().hiddenSize() + ".");
    }
    int layers = weights.layers.length;
    float[][] qkv = new float[layers][];
    float[][] out = new float[layers][];
    for (int l = 0; l < layers; l++) {
      qkv[l] = weights.layers[l].qkvWeight().toFloatArray();
      out[l] = weights.layers[l].outWeight().toFloatArray();
    }
    return HeadWeights.fromLinear(config().numAttentionHeads(), config().parts().keyValueHeads(), config().hiddenSize(),
        config().headSize(), qkv, out);
  }

  /**
   * The norms composition scores divide, from the model's own weight tensors (no copy into Java and back):
   * views of the fused (3d, d) projection and the output weight, per layer. A model whose keys and values
   * are shared between heads (grouped queries) goes through {@link #headWeights} as before.
   */
  public CompositionNorms compositionNorms(java.util.Set<CompositionNorms.Mode> modes) {
    BertConfig c = config();
    int h = c.numAttentionHeads();
    int d = c.hiddenSize();
    int layers = weights.layers.length;
    if (layers == 0 || d % h != 0 || weights.layers[0].qkvWeight().getShape().get(0) != 3L * d) {
      return compositionNorms(headWeights(), modes);
    }
    int r = d / h;
    return CompositionNorms.compute(manager, layers, h, d, r, (m, l) -> {
      BertWeights.Layer p = weights.layers[l];
      NDArray[] out = new NDArray[4];
      for (int i = 0; i < 3; i++) {
        NDArray rows = p.qkvWeight().get(i * d + ":" + (i + 1) * d); // (H dh, d) of the (out, in) weight: a view
        rows.attach(m);
        out[i] = rows.reshape(h, r, d).transpose(0, 2, 1); // (H, d, dh)
      }
      NDArray t = p.outWeight().transpose(); // (H dh, d): head h's W_O is rows h dh .. (h + 1) dh
      t.attach(m);
      out[3] = t.reshape(h, r, d); // (H, dh, d)
      return out;
    }, modes, null, 0);
  }

  /** The norms composition scores divide, for any heads' weights (the model's, or random ones of its shapes). */
  public CompositionNorms compositionNorms(HeadWeights w, java.util.Set<CompositionNorms.Mode> modes) {
    return CompositionNorms.compute(manager, w, modes);
  }

  /**
   * The masked-LM head's activation (its GELU, erf or tanh as the model's config says) applied to
   * {@code z} by the engine's own kernel, so that a caller freezing it uses the very function the run used.
   */
  public float[] headActivation(float[] z) {
    try (NDManager scope = manager.newSubManager(); NDArray x = scope.create(z)) {
      return encoder.headActivation(x).toFloatArray();
    }
  }

  /**
   * Sets how many cells of (B, c, T, T) scores a summarised layer computes at once (the default, 1M, is four heads
   * at 512 tokens) and returns the previous setting: tests set it to 1 to read a tiny model's heads one at a
   * time, as a long input's are.
   */
  public static long attentionChunkCells(long cells) {
    long old = BertEncoder.chunkCells;
    BertEncoder.chunkCells = chunkOf(cells);
    return old;
  }

  private static long chunkOf(long cells) {
    if (cells < 1) {
      throw new IllegalArgumentException("chunk of " + cells + " cells");
    }
    return cells;
  }

  /**
   * Sets how many cells a long input's MLP chunk may hold in its widest array (the default, 6M, is 512 rows of a
   * TinyLlama's gate and up products together) and returns the previous setting: tests set it small to run a tiny
   * model's MLP a few token rows at a time, as a long input's is.
   */
  public static long mlpChunkCells(long cells) {
    long old = BertEncoder.mlpChunkCells;
    BertEncoder.mlpChunkCells = chunkOf(cells);
    return old;
  }

  /** Runs a batch with the request's interventions, captures and readouts. */
  public RunResult run(RunRequest r) {
    BertConfig c = config();
    int layers = c.numHiddenLayers();
    int to = Math.min(r.to(), layers);
    checkRange(r.from(), to, r.start());
    if (to < layers && !r.readouts().isEmpty()) {
      throw new IllegalArgumentException("a run that stops before the last layer has no readouts");
    }
    try (NDManager scope = manager.newSubManager()) {
      Batch batch = Batch.of(scope, r.inputs());
      Hooks hooks = new Hooks();
      CaptureSink sink = new CaptureSink(weights).lengths(batch.lengths());
      sink.attach(hooks, r.captures(), r.from(), to);
      attach(hooks, r.interventions(), batch);
      NDArray scoreMask = encoder.scoreMask(batch.real());
      NDArray x = r.start() == null
          ? encoder.embed(batch.ids(), batch.segments(), hooks)
          : start(scope, r.start(), batch);
      boolean reachesTheTop = to == layers && r.from() < layers;
      if (reachesTheTop && onlyMapsOfTheLastLayer(r)) {
        // nothing reads the model's output: the last layer stops at its pattern and values
        x = encoder.encodeLayerByLayer(x, scoreMask, r.from(), layers - 1, hooks);
        encoder.attentionMaps(layers - 1, x, scoreMask, hooks);
        return RunResult.unread(batch.lengths(), batch.width(), sink.cache());
      }
      ReadRows rows = reachesTheTop ? ReadRows.of(r, batch.width()) : null;
      if (rows == null) {
        x = encoder.encodeLayerByLayer(x, scoreMask, r.from(), to, hooks); // (B, T, d)
        if (to < layers) {
          return RunResult.unread(batch.lengths(), batch.width(), sink.cache());
        }
      } else {
        // only a few positions are read and nothing else looks: the last layer computes just those rows
        x = encoder.encodeLayerByLayer(x, scoreMask, r.from(), layers - 1, hooks); // (B, T, d)
        try (NDManager last = scope.newSubManager()) {
          x.tempAttach(last);
          NDArray out = BertEncoder.finite(encoder.layerAtTokens(layers - 1, x, rows.pick(scope), scoreMask, hooks),
              layers); // (B, M, d)
          out.attach(scope);
          x = out;
        }
      }
      x = hooks.at(HookPoint.fin(), encoder.finalNorm(x));
      Readouts ro = rows == null ? r.readouts() : rows.readouts();
      List<List<RunResult.MaskDistribution>> mlm = (ro.maskedLmMaskId() >= 0 || ro.maskedLmMaskId() == Readouts.NEXT_TOKEN)
          && weights.hasMaskedLmHead()
          ? MlmReadouts.maskedLm(encoder, batch, ids(r.inputs()), x, ro.maskedLmMaskId())
          : emptyLists(batch);
      float[][] classes = ro.classifier() && weights.hasClassifier() ? MlmReadouts.classifier(encoder, x) : null;
      float[][][] logProbs = ro.logProbPositions() == null ? null
          : MlmReadouts.logProbArrays(encoder, x, ro.logProbPositions());
      RunResult.TargetScores[] comparison = ro.comparisons() == null ? null
          : MlmReadouts.compare(encoder, x, ro.comparisons());
      return new RunResult(batch.lengths(), batch.width(), sink.cache(), mlm, classes, logProbs, comparison);
    }
  }

  /**
   * One head's attention map recomputed from the queries and keys a run kept ({@link Capture#summaries}),
   * {@code [query][key]} over the input's {@code length} real tokens. The same operations as the run's
   * {@code hook_pattern}: the scores of {@link BertEncoder#scores} with the score mask {@link
   * BertEncoder#scoreMask} makes for the run's padded width, then the softmax over the keys; a batched
   * product of (H, T, dh) by (H, dh, T) is, on the CPU, one product per head of exactly these shapes, and the
   * mask and the softmax act per element and per row, so the map is the bits of the run's own map
   * wherever the products are batch-invariant ({@link #batchInvariant}), and within the float32 bound
   * {@code AttentionOnDemandTest} derives elsewhere.
   *
   * @param layer the head's layer (0-based): a windowed layer's band (ModernBERT's local layers) is part of its mask
   * @param query the head's queries, {@code width x dh} row-major (after rotary, as {@code hook_q})
   * @param key its key/value group's keys, {@code width x dh}
   * @param width the padded width of the run's batch
   * @param length the input's real length
   */
  public float[][] attentionMap(int layer, float[] query, float[] key, int width, int length) {
    int dh = config().headSize();
    if (query.length != width * dh || key.length != width * dh || length > width || length < 1) {
      throw new IllegalArgumentException("queries " + query.length + " and keys " + key.length + " for width "
          + width + ", length " + length + ", head size " + dh);
    }
    try (NDManager scope = manager.newSubManager()) {
      Shape s = new Shape(1, 1, width, dh);
      NDArray q = scope.create(query, s);
      NDArray k = scope.create(key, s);
      long[] real = new long[width];
      java.util.Arrays.fill(real, 0, length, 1L);
      NDArray realTokens = scope.create(real, new Shape(1, width));
      NDArray pattern = BertEncoder.scores(q, k, encoder.layerMask(layer, encoder.scoreMask(realTokens), width, scope), dh).softmax(-1); // (1, 1, T, T)
      // each row read straight from the tensor's own memory: no (T x T) float[] between (17 MB at 2,048 tokens)
      java.nio.FloatBuffer cells = pattern.toByteBuffer().asFloatBuffer();
      float[][] map = new float[length][length];
      for (int i = 0; i < length; i++) {
        cells.position(i * width);
        cells.get(map[i]);
      }
      return map;
    }
  }

  /** Whether a run reads nothing and keeps nothing of its last layer beyond the maps, the values and what comes of them. */
  private boolean onlyMapsOfTheLastLayer(RunRequest r) {
    if (!r.readouts().isEmpty() || !r.interventions().stream().allMatch(i -> i instanceof Intervention.HeadMasks)) {
      return false;
    }
    int last = config().numHiddenLayers() - 1;
    java.util.Set<HookPoint.Kind> early = java.util.EnumSet.of(HookPoint.Kind.RESID_PRE, HookPoint.Kind.ATTN_Q,
        HookPoint.Kind.ATTN_K, HookPoint.Kind.ATTN_V, HookPoint.Kind.ATTN_SCORES, HookPoint.Kind.ATTN_PATTERN);
    for (Capture c : r.captures()) {
      if (c.keeps(HookPoint.fin())) {
        return false;
      }
      for (HookPoint.Kind k : HookPoint.Kind.values()) {
        if (k.perLayer() && !early.contains(k) && c.keeps(HookPoint.of(k, last))) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * One backward pass of the request's loss (masked-LM, or the classifier's cross-entropy). Only the mask
   * variables (or the value at the point) require a gradient: the weights never do, so no gradient buffers are made for them.
   */
  public GradientResult gradient(GradientRequest g) {
    BertConfig c = config();
    int layers = c.numHiddenLayers();
    int heads = c.numAttentionHeads();
    if (g.withRespectTo() != null) {
      g.withRespectTo().checkIn(c);
    }
    try (NDManager scope = manager.newSubManager();
        GradientCollector collector = scope.getEngine().newGradientCollector()) {
      Batch batch = Batch.of(scope, List.of(g.input()));
      Hooks hooks = new Hooks();
      attach(hooks, g.interventions(), batch);
      NDArray m = null;
      NDArray[] atPoint = new NDArray[1];
      if (g.withRespectTo() == null) {
        m = scope.ones(new Shape(layers, heads));
        m.setRequiresGradient(true);
        for (int l = 0; l < layers; l++) {
          NDArray row = m.get(l).reshape(1, heads, 1, 1); // (1, H, 1, 1)
          hooks.intervene(HookPoint.pattern(l), a -> a.mul(row));
        }
      } else {
        // a leaf at the point: the gradient there is the gradient with respect to the point's value
        hooks.intervene(g.withRespectTo(), a -> {
          NDArray leaf = a.stopGradient();
          leaf.setRequiresGradient(true);
          atPoint[0] = leaf;
          return leaf;
        });
      }
      NDArray x = encoder.embed(batch.ids(), batch.segments(), hooks);
      x = encoder.encode(x, encoder.scoreMask(batch.real()), 0, layers, hooks); // (1, T, d)
      x = hooks.at(HookPoint.fin(), encoder.finalNorm(x));
      long[] targets;
      NDArray loss;
      if (g.classifierLoss()) {
        NDArray logq = encoder.classifierLogits(x).logSoftmax(-1); // (1, labels)
        if (g.classLabel() >= logq.getShape().get(1)) {
          throw new IllegalArgumentException("class " + g.classLabel() + " of " + logq.getShape().get(1));
        }
        targets = new long[] {g.classLabel()};
        loss = MlmReadouts.targetLogProbs(logq, targets).mean().neg();
      } else {
        NDArray logq = MlmReadouts.logProbs(encoder, x, g.positions()); // (M, V)
        targets = g.targets() != null ? g.targets() : logq.argMax(-1).toLongArray();
        loss = MlmReadouts.targetLogProbs(logq, targets).mean().neg();
      }
      collector.backward(loss);
      double[][] dm = null;
      Activation dPoint = null;
      if (m != null) {
        float[] flat;
        try (NDArray grad = m.getGradient()) {
          flat = grad.toFloatArray();
        }
        dm = new double[layers][heads];
        for (int l = 0; l < layers; l++) {
          for (int h = 0; h < heads; h++) {
            dm[l][h] = flat[l * heads + h];
          }
        }
      } else {
        if (atPoint[0] == null) {
          throw new HeadScopeException("The pass never reached " + g.withRespectTo() + ".");
        }
        try (NDArray grad = atPoint[0].getGradient()) {
          dPoint = CaptureSink.copy(grad);
        }
      }
      return new GradientResult(loss.getFloat(), targets, dm, dPoint);
    }
  }

  /** Every row's metric and its gradient at the row's embeddings, in one backward pass ({@link EmbeddingGradients}). */
  public EmbeddingGradients.Result embeddingGradients(EmbeddingGradients g) {
    int n = g.embeddings().dim(0);
    try (NDManager scope = manager.newSubManager();
        GradientCollector collector = scope.getEngine().newGradientCollector()) {
      Batch batch = Batch.of(scope, java.util.Collections.nCopies(n, g.input()));
      NDArray e = fromJava(scope, g.embeddings()); // (N, T, d)
      e.setRequiresGradient(true);
      NDArray x = encoder.encode(e, encoder.scoreMask(batch.real()), 0, config().numHiddenLayers(), new Hooks());
      x = encoder.finalNorm(x);
      NDArray logq = MlmReadouts.logProbs(encoder, x, g.positions()); // (N * M, V), row after row
      NDArray metric = MlmReadouts.targetLogProbs(logq, new long[] {g.target()});
      if (g.contrast() >= 0) {
        metric = metric.sub(MlmReadouts.targetLogProbs(logq, new long[] {g.contrast()}));
      }
      metric = metric.reshape(n, g.positions().length).mean(new int[] {1}); // (N)
      collector.backward(metric.sum());
      float[] values = metric.toFloatArray();
      double[] out = new double[n];
      for (int b = 0; b < n; b++) {
        out[b] = values[b];
      }
      try (NDArray grad = e.getGradient()) {
        return new EmbeddingGradients.Result(out, CaptureSink.copy(grad));
      }
    }
  }

  /** One backward pass of a weighted sum of log-probabilities at many points ({@link PointGradients}). */
  public PointGradients.Result pointGradients(PointGradients g) {
    for (HookPoint p : g.points()) {
      p.checkIn(config());
    }
    try (NDManager scope = manager.newSubManager();
        GradientCollector collector = scope.getEngine().newGradientCollector()) {
      int rows = g.rows();
      Batch batch = Batch.of(scope, java.util.Collections.nCopies(rows, g.input()));
      Hooks hooks = new Hooks();
      if (g.embeddings() != null) {
        // registered first: a gradient point at hook_embed then adds its zero to the given embeddings
        hooks.intervene(HookPoint.embed(), a -> fromJava(scope, g.embeddings()));
      }
      java.util.Map<HookPoint, NDArray> zeros = new java.util.LinkedHashMap<>();
      for (HookPoint p : g.points()) {
        hooks.intervene(p, a -> {
          // a + 0: the zero's gradient is dM/da along every path, none cut (see PointGradients)
          NDArray zero = scope.zeros(a.getShape(), a.getDataType());
          zero.setRequiresGradient(true);
          zeros.put(p, zero);
          return a.add(zero);
        });
      }
      NDArray x = encoder.embed(batch.ids(), batch.segments(), hooks);
      x = encoder.encode(x, encoder.scoreMask(batch.real()), 0, config().numHiddenLayers(), hooks); // (1, T, d)
      x = hooks.at(HookPoint.fin(), encoder.finalNorm(x));
      NDArray logq = MlmReadouts.logProbs(encoder, x, g.positions()); // (N M, V), row after row
      long[] tokens = g.tokens();
      float[] weights = g.weights();
      if (rows > 1) {
        tokens = new long[rows * g.tokens().length];
        weights = new float[tokens.length];
        for (int b = 0; b < rows; b++) {
          System.arraycopy(g.tokens(), 0, tokens, b * g.tokens().length, g.tokens().length);
          System.arraycopy(g.weights(), 0, weights, b * g.weights().length, g.weights().length);
        }
      }
      NDArray terms = MlmReadouts.targetLogProbs(logq, tokens).reshape(-1); // (N M)
      NDArray value = terms.mul(scope.create(weights)).sum();
      collector.backward(value);
      List<Activation> out = new java.util.ArrayList<>();
      for (HookPoint p : g.points()) {
        NDArray zero = zeros.get(p);
        if (zero == null) {
          throw new HeadScopeException("The pass never reached " + p + ".");
        }
        try (NDArray grad = zero.getGradient()) {
          out.add(CaptureSink.copy(grad));
        }
      }
      return new PointGradients.Result(value.getFloat(), out);
    }
  }

  /**
   * The classifier's cross-entropy of each input's label, differentiated with respect to each input's own
   * head-mask variables in one backward pass ({@link ClassifierGradients}).
   */
  public ClassifierGradients.Result classifierGradients(ClassifierGradients g) {
    BertConfig c = config();
    int layers = c.numHiddenLayers();
    int heads = c.numAttentionHeads();
    int n = g.inputs().size();
    try (NDManager scope = manager.newSubManager();
        GradientCollector collector = scope.getEngine().newGradientCollector()) {
      Batch batch = Batch.of(scope, g.inputs());
      Hooks hooks = new Hooks();
      attach(hooks, g.interventions(), batch);
      NDArray m = scope.ones(new Shape(n, layers, heads));
      m.setRequiresGradient(true);
      for (int l = 0; l < layers; l++) {
        NDArray row = m.get(new ai.djl.ndarray.index.NDIndex(":, {}, :", l)).reshape(n, heads, 1, 1); // (B, H, 1, 1)
        hooks.intervene(HookPoint.pattern(l), a -> a.mul(row));
      }
      NDArray x = encoder.embed(batch.ids(), batch.segments(), hooks);
      x = encoder.encode(x, encoder.scoreMask(batch.real()), 0, layers, hooks); // (B, T, d)
      x = hooks.at(HookPoint.fin(), encoder.finalNorm(x));
      NDArray logq = encoder.classifierLogits(x).logSoftmax(-1); // (B, labels)
      long[] index = new long[n];
      for (int b = 0; b < n; b++) {
        if (g.labels()[b] < 0 || g.labels()[b] >= logq.getShape().get(1)) {
          throw new IllegalArgumentException("class " + g.labels()[b] + " of " + logq.getShape().get(1));
        }
        index[b] = g.labels()[b];
      }
      NDArray each = logq.gather(scope.create(index, new Shape(n, 1)), 1).neg(); // (B, 1)
      // the sum: each input's mask variables reach only its own loss
      collector.backward(each.sum());
      float[] flat;
      try (NDArray grad = m.getGradient()) {
        flat = grad.toFloatArray();
      }
      float[] losses = each.toFloatArray();
      double[][][] dm = new double[n][layers][heads];
      double[] out = new double[n];
      for (int b = 0; b < n; b++) {
        out[b] = losses[b];
        for (int l = 0; l < layers; l++) {
          for (int h = 0; h < heads; h++) {
            dm[b][l][h] = flat[(b * layers + l) * heads + h];
          }
        }
      }
      return new ClassifierGradients.Result(out, dm);
    }
  }

  /**
   * Token-to-token Jacobian norms of every layer ({@link JacobianRequest}): one pass up the layers,
   * each layer differentiated at its input by {@link LayerJacobian} before the next runs on its output.
   *
   * @param progress called with the share done (0..1) after each chunk of backward passes
   */
  public JacobianResult jacobian(JacobianRequest r, java.util.function.DoubleConsumer progress,
      java.util.function.BooleanSupplier cancelled) {
    int layers = config().numHiddenLayers();
    try (NDManager scope = manager.newSubManager();
        GradientCollector collector = scope.getEngine().newGradientCollector()) {
      Batch batch = Batch.of(scope, List.of(r.input()));
      Hooks hooks = new Hooks();
      if (r.heads() != null) {
        HeadMasking.attach(hooks, r.heads(), batch); // one row: broadcast over the replicas
      }
      NDArray scoreMask = encoder.scoreMask(batch.real());
      NDArray x = encoder.embed(batch.ids(), batch.segments(), hooks); // (1, T, d); nothing needs a gradient
      int t = batch.width();
      long total = (long) layers * t * (r.exact() ? config().hiddenSize() : r.samples());
      long[] done = {0};
      LayerJacobian jac = new LayerJacobian(encoder, collector, hooks, scoreMask);
      java.util.Random rng = new java.util.Random(r.seed());
      double[][][] s = new double[layers][][];
      for (int l = 0; l < layers; l++) {
        s[l] = jac.squaredNorms(l, x, r.samples(), rng, cancelled, n -> {
          done[0] += n;
          progress.accept(done[0] / (double) total);
        });
        x = encoder.encodeLayerByLayer(x, scoreMask, l, l + 1, hooks);
      }
      return new JacobianResult(s, r.samples());
    }
  }

  private void attach(Hooks hooks, List<Intervention> interventions, Batch batch) {
    for (Intervention i : interventions) {
      if (i instanceof Intervention.HeadMasks masks) {
        HeadMasking.attach(hooks, masks, batch);
      } else if (i instanceof Intervention.Patch patch) {
        HookPoint p = patch.point().checkIn(config());
        hooks.intervene(p, a -> {
          checkShape(p, a, patch.value());
          return fromJava(a.getManager(), patch.value());
        });
      } else if (i instanceof Intervention.Edit edit) {
        HookPoint p = edit.point().checkIn(config());
        hooks.intervene(p, a -> {
          Activation out = edit.fn().apply(CaptureSink.copy(a));
          checkShape(p, a, out);
          return fromJava(a.getManager(), out);
        });
      } else {
        ((TensorIntervention) i).attach(hooks, batch);
      }
    }
  }

  private NDArray start(NDManager scope, Activation a, Batch batch) {
    int d = config().hiddenSize();
    int[] s = a.shape();
    if (s.length != 3 || s[0] != batch.size() || s[1] != batch.width() || s[2] != d) {
      throw new IllegalArgumentException("the start stream has shape " + java.util.Arrays.toString(s)
          + " but the batch needs (" + batch.size() + ", " + batch.width() + ", " + d + ")");
    }
    return fromJava(scope, a);
  }

  private void checkRange(int from, int to, Activation start) {
    if (from < 0 || from > to) {
      throw new IllegalArgumentException("layers " + from + ".." + to + " are not a range of this model's "
          + config().numHiddenLayers());
    }
    if (from > 0 && start == null) {
      throw new IllegalArgumentException("a run from layer " + from + " needs the stream it starts on");
    }
  }

  private static void checkShape(HookPoint p, NDArray a, Activation replacement) {
    long[] s = a.getShape().getShape();
    int[] r = replacement.shape();
    boolean same = s.length == r.length;
    for (int i = 0; same && i < s.length; i++) {
      same = s[i] == r[i];
    }
    if (!same) {
      throw new IllegalArgumentException("the value for " + p + " has shape " + java.util.Arrays.toString(r)
          + " but the point carries " + a.getShape());
    }
  }

  private static NDArray fromJava(NDManager scope, Activation a) {
    long[] shape = new long[a.rank()];
    for (int i = 0; i < shape.length; i++) {
      shape[i] = a.dim(i);
    }
    return scope.create(a.data(), new Shape(shape));
  }

  private static long[][] ids(List<Encoding> inputs) {
    long[][] out = new long[inputs.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = inputs.get(i).ids();
    }
    return out;
  }

  private static List<List<RunResult.MaskDistribution>> emptyLists(Batch batch) {
    return java.util.Collections.nCopies(batch.size(), List.of());
  }

  /** The manager that owns the weights (tests of memory ownership, in this package). */
  NDManager manager() {
    return manager;
  }

  static long countResources(NDManager m) {
    try {
      java.lang.reflect.Field f = ai.djl.ndarray.BaseNDManager.class.getDeclaredField("resources");
      f.setAccessible(true);
      long n = 0;
      for (Object r : ((java.util.Map<?, ?>) f.get(m)).values()) {
        n += r instanceof NDManager sub ? 1 + countResources(sub) : 1;
      }
      return n;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot count DJL's native resources", e);
    }
  }

  @Override
  public void close() {
    weights.close();
    manager.close();
  }
}
