package io.headscope.model;

import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.ActivationCache;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.ClassifierGradients;
import io.headscope.model.engine.Engine;
import io.headscope.model.engine.GradientRequest;
import io.headscope.model.engine.GradientResult;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.JacobianRequest;
import io.headscope.model.engine.JacobianResult;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.tokenizer.BertTextEncoder;
import io.headscope.model.tokenizer.TextEncoder;
import io.headscope.model.tokenizer.MaskSpelling;
import io.headscope.model.tokenizer.TextEncoders;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A loaded BERT: the one service the analyses, the CLI and the GUI share. Its tensors live in the
 * {@link Engine}; everything here and above is plain Java.
 *
 * <p>{@link #run} and {@link #gradient} are the entry point into the forward pass; {@link #trace(TraceRequest)}
 * and {@link #layerNormMaps} are the common requests built on it. Instances are safe to call from
 * one thread at a time; the app serialises calls on its worker.
 */
public final class BertModel implements AutoCloseable {
  private final Engine engine;
  private final TextEncoder tokenizer;
  private final Traces traces;
  private final ModelFiles files;
  private ModelFiles.Identity identity;
  /** Why a classifier stored in the checkpoint is not used (another family's head), or null. */
  private String unreadClassifier;
  /** Whether {@link #close} frees the engine and tokenizer; false for a {@link #borrowed} view. */
  private final boolean owner;

  private BertModel(ModelFiles files, Engine engine, TextEncoder tokenizer) {
    this.files = files;
    this.engine = engine;
    this.tokenizer = tokenizer;
    this.traces = new Traces(files.name(), engine.config(), tokenizer::vocabToken);
    this.owner = true;
  }

  private BertModel(BertModel lent) {
    this.files = lent.files;
    this.engine = lent.engine;
    this.tokenizer = lent.tokenizer;
    this.traces = lent.traces;
    this.identity = lent.identity;
    this.unreadClassifier = lent.unreadClassifier;
    this.owner = false;
  }

  /**
   * This model for code that closes what it opens ({@code try (BertModel m = ...)}) while someone else
   * keeps it: the same engine and tokenizer, and a {@link #close} that frees nothing. A long-lived owner
   * ({@code headscope serve}) lends one per request and closes the original itself, once.
   */
  public BertModel borrowed() {
    return new BertModel(this);
  }

  /** Loads a model folder; {@code hiddenActOverride} (nullable) replaces the config's GELU. */
  public static BertModel load(ModelFiles files, String hiddenActOverride) {
    BertConfig config = BertConfig.read(files.config());
    if (hiddenActOverride != null) {
      config = config.withHiddenAct(hiddenActOverride);
    }
    if (config.maxTokens() < BertTextEncoder.MIN_LENGTH) {
      throw new HeadScopeException(files.config() + ": max_position_embeddings is " + config.maxPositionEmbeddings()
          + "; HeadScope needs at least " + BertTextEncoder.MIN_LENGTH + " positions ([CLS], a word, [SEP], ...)"
          + (config.positionOffset() > 0 ? ", after the first " + config.positionOffset() + ", which this family skips" : "")
          + ".");
    }
    Engine engine = null;
    TextEncoder tokenizer = null;
    boolean sharded = io.headscope.model.checkpoint.ShardedCheckpoint.isIndex(files.weights());
    List<Safetensors> shards = sharded ? io.headscope.model.checkpoint.ShardedCheckpoint.open(files.weights())
        : List.of(Safetensors.open(files.weights()));
    try {
      Safetensors st = shards.get(0);
      // before a byte is loaded: a model this machine cannot hold says so, with what it needs
      io.headscope.model.checkpoint.WeightMemory.check(files.name(),
          io.headscope.model.checkpoint.WeightMemory.need(shards), io.headscope.model.checkpoint.WeightMemory.available());
      boolean tied = io.headscope.model.core.ConfigFields.tiedWordEmbeddings(files.config());
      engine = sharded ? Engine.load(config, shards, files.weights(), tied) : Engine.load(config, st, tied);
      // the tokenizer's own kind (WordPiece, byte-level BPE, Unigram) and special-token template
      tokenizer = TextEncoders.open(files.tokenizer(), config.maxTokens());
      if (tokenizer.vocabSize() > config.vocabSize()) {
        throw new HeadScopeException(files.tokenizer() + " has " + tokenizer.vocabSize()
            + " tokens but the model's vocabulary has only " + config.vocabSize() + ".");
      }
      BertModel model = new BertModel(files, engine, tokenizer);
      if (config.family() != io.headscope.model.core.Family.BERT && shards.stream().flatMap(f -> f.tensors().keySet().stream())
          .anyMatch(n -> n.startsWith("classifier.") || n.startsWith("pre_classifier."))) {
        // RobertaForSequenceClassification and kin: dense + out_proj (or pre_classifier) on the first token
        model.unreadClassifier = files.name() + "'s " + config.family().displayName + " classifier head (classifier.*) "
            + "is not read: HeadScope runs BERT's sequence classifier only; its maps, switches and sweeps work";
      }
      return model;
    } catch (RuntimeException e) {
      if (tokenizer != null) {
        tokenizer.close();
      }
      if (engine != null) {
        engine.close();
      }
      throw e;
    } finally {
      shards.forEach(Safetensors::close);
    }
  }

  public static BertModel load(ModelFiles files) {
    return load(files, null);
  }

  public String name() {
    return files.name();
  }

  /**
   * What this model is, whatever its folder is called: the SHA-256 of the files it was loaded from
   * (hashed at the first call; the cache's manifest saves the hashing for cached models). Shards record
   * it, so parts of two checkpoints both called {@code tiny-mlm} are never merged.
   */
  public synchronized ModelFiles.Identity identity() {
    if (identity == null) {
      identity = files.identity();
    }
    return identity;
  }

  public BertConfig config() {
    return engine.config();
  }

  public boolean hasMaskedLmHead() {
    return engine.hasMaskedLmHead();
  }

  public boolean hasClassifier() {
    return engine.hasClassifier();
  }

  /** Class names of the classifier head: config {@code id2label}, else LABEL_0, LABEL_1, ... */
  public List<String> classLabels() {
    List<String> labels = new ArrayList<>(config().id2label());
    for (int i = labels.size(); i < engine.classifierLabels(); i++) {
      labels.add("LABEL_" + i);
    }
    return labels.subList(0, engine.classifierLabels());
  }

  public TextEncoder tokenizer() {
    return tokenizer;
  }

  /** This model's mask token as written ({@code [MASK]}, {@code <mask>}), or null when it has none (GPT-2). */
  public String maskToken() {
    return MaskSpelling.own(tokenizer);
  }

  /**
   * Tokenizes a sentence or a pair ({@code b} null for a single sentence). The mask may be written as any
   * family writes it ({@code [MASK]} or {@code <mask>}): it is read as this model's own ({@link MaskSpelling}).
   */
  public Encoding encode(String a, String b) {
    String mask = maskToken();
    a = MaskSpelling.asOwn(a, mask);
    b = MaskSpelling.asOwn(b, mask);
    if (b == null) {
      return tokenizer.encode(a);
    }
    if (config().family().causal()) {
      throw new HeadScopeException(name() + " is " + config().family().withArticle() + ", which has no format for a "
          + "pair of sentences (no separator, no second type): give one text, or join the two yourself.");
    }
    // a pair is refused only where the family's template gives the second sentence a type the model
    // has no embedding for (BERT trained on one type); RoBERTa's template keeps every token in type 0
    Encoding pair = tokenizer.encode(a, b);
    checkSegments(List.of(pair));
    return pair;
  }

  /** A model trained with one segment type (type_vocab_size 1) has no embedding for a second sentence. */
  private void refusePairs() {
    if (config().typeVocabSize() < 2) {
      throw new HeadScopeException(files.config() + ": type_vocab_size 1: " + name() + " was trained on single "
          + "sentences and has no embedding for a second sentence; leave out the second sentence.");
    }
  }

  /** Refuses inputs whose segment ids the model has no embedding for (a pair on a one-segment model). */
  private void checkSegments(List<Encoding> inputs) {
    if (!config().family().hasTokenTypes()) {
      return; // the model has no token type embedding: the ids are not read
    }
    for (Encoding e : inputs) {
      for (long s : e.segments()) {
        if (s >= config().typeVocabSize() || s < 0) {
          refusePairs();
          throw new HeadScopeException(files.config() + ": type_vocab_size is " + config().typeVocabSize()
              + " but the input has segment id " + s + ".");
        }
      }
    }
  }

  /** The forward pass with hooks and a cache: see {@link RunRequest}. */
  public RunResult run(RunRequest request) {
    checkSegments(request.inputs());
    return engine.run(request);
  }

  /**
   * Why the checkpoint's own classifier is not used, for the messages of commands that need one (another
   * family's head, e.g. RoBERTa's dense + out_proj); empty when there is none or it is read.
   */
  public java.util.Optional<String> unreadClassifier() {
    return java.util.Optional.ofNullable(unreadClassifier);
  }

  /** A backward pass: see {@link GradientRequest}. */
  public GradientResult gradient(GradientRequest request) {
    checkSegments(List.of(request.input()));
    return engine.gradient(request);
  }

  /** The linear end of a pre-LayerNorm model's head: see {@link io.headscope.model.engine.Engine#unembedWeights}. */
  public io.headscope.model.engine.UnembedWeights unembedWeights(long... tokens) {
    return engine.unembedWeights(tokens);
  }

  /** A post-LayerNorm model's LayerNorms and head: see {@link io.headscope.model.engine.Engine#postLayerNormWeights}. */
  public io.headscope.model.engine.PostLayerNormWeights postLayerNormWeights(long... tokens) {
    return engine.postLayerNormWeights(tokens);
  }

  /** A pre-norm encoder's final norm and masked-LM head: see {@link io.headscope.model.engine.Engine#preNormMaskedLmWeights}. */
  public io.headscope.model.engine.PreNormMaskedLmWeights preNormMaskedLmWeights(long... tokens) {
    return engine.preNormMaskedLmWeights(tokens);
  }

  /** Each layer's LayerNorms: see {@link io.headscope.model.engine.Engine#layerNormWeights}. */
  public io.headscope.model.engine.LayerNormWeights layerNormWeights() {
    return engine.layerNormWeights();
  }

  /** The fused query, key and value weights: see {@link io.headscope.model.engine.Engine#qkvWeights}. */
  public float[][] qkvWeights() {
    return engine.qkvWeights();
  }

  /** The MLPs' input weights: see {@link io.headscope.model.engine.Engine#mlpInWeights}. */
  public float[][] mlpInWeights() {
    return engine.mlpInWeights();
  }

  /** Every head's weight matrices: see {@link io.headscope.model.engine.Engine#headWeights}. */
  public io.headscope.model.engine.HeadWeights headWeights() {
    return engine.headWeights();
  }

  /** Composition scores' norms of the model's own heads: see {@link io.headscope.model.engine.CompositionNorms}. */
  public io.headscope.model.engine.CompositionNorms compositionNorms(
      java.util.Set<io.headscope.model.engine.CompositionNorms.Mode> modes) {
    return engine.compositionNorms(modes);
  }

  /** Composition scores' norms: see {@link io.headscope.model.engine.CompositionNorms}. */
  public io.headscope.model.engine.CompositionNorms compositionNorms(io.headscope.model.engine.HeadWeights w,
      java.util.Set<io.headscope.model.engine.CompositionNorms.Mode> modes) {
    return engine.compositionNorms(w, modes);
  }

  /** The masked-LM head's activation: see {@link io.headscope.model.engine.Engine#headActivation}. */
  public float[] headActivation(float[] z) {
    return engine.headActivation(z);
  }

  /** Batched gradients at the embeddings: see {@link io.headscope.model.engine.EmbeddingGradients}. */
  public io.headscope.model.engine.EmbeddingGradients.Result embeddingGradients(
      io.headscope.model.engine.EmbeddingGradients request) {
    checkSegments(List.of(request.input()));
    return engine.embeddingGradients(request);
  }

  /** One backward pass at many points: see {@link io.headscope.model.engine.PointGradients}. */
  public io.headscope.model.engine.PointGradients.Result gradients(io.headscope.model.engine.PointGradients request) {
    checkSegments(List.of(request.input()));
    return engine.pointGradients(request);
  }

  /** Batched backward passes of the classifier's cross-entropy: see {@link ClassifierGradients}. */
  public ClassifierGradients.Result classifierGradients(ClassifierGradients request) {
    checkSegments(request.inputs());
    return engine.classifierGradients(request);
  }

  /**
   * Token-to-token Jacobian norms of every layer for one input, with the mask's heads switched off
   * ({@link JacobianRequest}; {@code samples} 0 is exact).
   */
  public JacobianResult jacobian(Encoding input, HeadMask mask, int samples, long seed,
      java.util.function.DoubleConsumer progress, java.util.function.BooleanSupplier cancelled) {
    checkSegments(List.of(input));
    return engine.jacobian(new JacobianRequest(input, Intervention.heads(mask, config()), samples, seed), progress,
        cancelled);
  }

  /**
   * Whether an input's numbers are bit-identical however it is batched with inputs of its length (MKL's
   * strict reproducible mode; {@link io.headscope.model.engine.Engine#batchInvariant}). The corpus sweeps batch
   * across inputs only when it holds, so that their output never depends on the batching.
   */
  public boolean batchInvariant() {
    return engine.batchInvariant();
  }

  /** Native arrays alive in the engine: the weights, plus anything a call failed to free. */
  public long liveNativeArrays() {
    return engine.liveNativeArrays();
  }

  /** One input with every head on: {@code trace(TraceRequest.of(input)).get(0)}. */
  public AttentionTrace trace(Encoding input) {
    return trace(TraceRequest.of(input)).get(0);
  }

  /**
   * Runs a batch in one forward pass and returns a trace per input ({@link TraceRequest} names the
   * options). Inputs of different lengths are padded and masked, so each trace equals what the input
   * gives alone. With {@link AttentionTrace.Maps#COMPUTED} the maps are captured before the head mask (a
   * head switched off shows what it computed); the layers above, the hidden states and the predictions
   * feel the mask either way.
   */
  public List<AttentionTrace> trace(TraceRequest t) {
    if (t.inputs().isEmpty()) {
      return List.of();
    }
    Capture patterns = Capture.points(HookPoint.Kind.ATTN_PATTERN);
    boolean summaries = t.keep() == TraceRequest.Keep.SUMMARIES;
    checkTraceMemory(t);
    RunRequest request = t.adjust().apply(RunRequest.of(t.inputs())
        .intervene(Intervention.heads(t.mask(), config())))
        // a trace of summaries keeps no map: summaries, thumbnails, and the queries and keys to recompute one
        .capture(summaries ? Capture.summaries(t.thumbnailSide())
            : t.maps() == AttentionTrace.Maps.COMPUTED ? patterns.beforeInterventions() : patterns)
        .capture(t.layerNormMaps() ? Capture.derived(Capture.Derived.VALUE_NORMS, Capture.Derived.LAYER_NORM_MAP)
            : Capture.derived(Capture.Derived.VALUE_NORMS))
        .capture(Capture.points(HookPoint.Kind.FINAL))
        .read(readouts());
    return traces.of(t, run(request), engine);
  }

  /**
   * Makes libtorch run this thread's operations on this thread alone, for a thread that runs forward
   * passes beside others (the corpus runs' workers, one per core): on two cores two such threads got
   * 17% more through the classification corpus than one thread with two intra-op threads, and the
   * results are the same bits (MKL's strict mode does not depend on the thread count; torch's own
   * kernels split rows, not sums). Call it first thing on a thread of one's own; OpenMP keeps the
   * setting per thread, so the threads that call the model otherwise are not affected.
   */
  public static void runOnThisThreadOnly() {
    io.headscope.model.engine.Engine.runOnThisThreadOnly();
  }

  /**
   * The maps (as computed) and value norms of a batch and nothing else: what the corpus analyses read.
   * Nothing reads the model's output, so the last layer stops at its pattern and values (about 6% of a
   * forward pass saved); the traces have no hidden states (null), predictions or class probabilities.
   * Each map is the bits {@link #trace(TraceRequest)} gives.
   */
  public List<AttentionTrace> maps(List<Encoding> inputs) {
    if (inputs.isEmpty()) {
      return List.of();
    }
    RunRequest request = RunRequest.of(inputs)
        .capture(Capture.points(HookPoint.Kind.ATTN_PATTERN).beforeInterventions())
        .capture(Capture.derived(Capture.Derived.VALUE_NORMS));
    return traces.of(TraceRequest.of(inputs).top(0), run(request));
  }

  /**
   * Refuses, before running, a trace whose maps cannot fit (704 heads at 2,048 tokens are 11.8 GB of maps),
   * naming what a trace of summaries would need instead.
   */
  private void checkTraceMemory(TraceRequest t) {
    int width = t.inputs().stream().mapToInt(Encoding::length).max().orElse(0);
    int batch = t.inputs().size();
    boolean full = t.keep() == TraceRequest.Keep.FULL_MAPS;
    var need = io.headscope.model.checkpoint.WeightMemory.traceNeed(config(), batch, width, full, t.thumbnailSide());
    var instead = full ? io.headscope.model.checkpoint.WeightMemory.traceNeed(config(), batch, width, false,
        t.thumbnailSide()) : null;
    io.headscope.model.checkpoint.WeightMemory.checkTrace(name(), width, need, instead,
        io.headscope.model.checkpoint.WeightMemory.available(), Runtime.getRuntime().maxMemory());
  }

  private Readouts readouts() {
    Readouts r = Readouts.none();
    if (hasMaskedLmHead()) {
      r = r.withMaskedLm(config().family().masked() ? tokenizer.maskId() : Readouts.NEXT_TOKEN);
    }
    return hasClassifier() ? r.withClassifier() : r;
  }

  /**
   * Kobayashi et al.'s layer-level norm map for each input: {@code N_ij = || sum_h A^h_ij f^h(x_j) ||}
   * ({@code [layer][query][key]}), the length of what token j actually contributes to token i
   * through the whole attention layer (sum the head vectors first, then take the norm), with the
   * mask's heads switched off.
   */
  public List<float[][][]> layerNormMaps(List<Encoding> inputs, HeadMask mask) {
    checkSegments(inputs);
    int layers = config().numHiddenLayers();
    RunResult r = run(RunRequest.of(inputs)
        .intervene(Intervention.heads(mask, config()))
        .capture(Capture.derived(Capture.Derived.LAYER_NORM_MAP)));
    ActivationCache cache = r.cache();
    List<float[][][]> out = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      int len = r.lengths()[i];
      float[][][] maps = new float[layers][][];
      for (int l = 0; l < layers; l++) {
        maps[l] = cache.derived(Capture.Derived.LAYER_NORM_MAP, l).matrix(len, len, i);
      }
      out.add(maps);
    }
    return out;
  }

  @Override
  public void close() {
    if (owner) {
      tokenizer.close();
      engine.close();
    }
  }
}
