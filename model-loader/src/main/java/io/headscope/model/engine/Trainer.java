package io.headscope.model.engine;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.norm.Dropout;
import ai.djl.training.GradientCollector;
import ai.djl.training.optimizer.AdamW;
import ai.djl.training.tracker.LinearTracker;
import ai.djl.training.tracker.ParameterTracker;
import ai.djl.training.tracker.Tracker;
import ai.djl.training.tracker.WarmUpTracker;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.checkpoint.FloatTensor;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Fine-tunes a BERT as Hugging Face's {@code BertForSequenceClassification}: the engine's own forward
 * pass ({@link BertEncoder}), the pooler {@code tanh(W_p h_[CLS] + b_p)} and a linear classifier,
 * cross-entropy of the gold label, DJL's AdamW on every weight, a linear warm-up and decay of the
 * learning rate, dropout where BERT has it.
 *
 * <p>Every weight of the checkpoint's encoder, embeddings and pooler is trained; the masked-LM head is
 * dropped. The classifier is new (weights N(0, 0.02) from the seed, bias 0) unless the checkpoint
 * already has one with as many labels, which then goes on training. Dropout acts at hook points
 * (embeddings, attention pattern, attention and feed-forward outputs) as interventions for the
 * training passes only, so the forward pass itself is the one every other command runs.
 *
 * <p>Memory: the weights, their gradients and AdamW's two moments live for the trainer's life (4 times
 * the weights); each step runs in a sub-manager closed before the next. One thread at a time.
 */
public final class Trainer implements AutoCloseable {
  private static final String ENGINE = "PyTorch";
  /** Hugging Face's {@code initializer_range}: the standard deviation of new weights. */
  private static final double INIT_STD = 0.02;
  private static final int EVAL_BATCH = 32;

  private final NDManager manager;
  private final BertWeights weights;
  private final BertEncoder encoder;
  private final BertConfig config;
  private final FineTuneOptions options;
  private final Map<String, NDArray> parameters;
  private final Set<String> decayed;
  private final OwnedAdamW withDecay;
  private final OwnedAdamW withoutDecay;
  private final Random shuffle;
  private final int totalSteps;

  private Trainer(NDManager manager, BertWeights weights, List<String> labels, FineTuneOptions options,
      int trainInputs) {
    this.manager = manager;
    this.weights = weights;
    this.encoder = new BertEncoder(weights);
    BertConfig c = weights.config;
    this.config = new BertConfig(c.vocabSize(), c.hiddenSize(), c.numHiddenLayers(), c.numAttentionHeads(),
        c.intermediateSize(), c.hiddenAct(), c.maxPositionEmbeddings(), c.typeVocabSize(), c.layerNormEps(),
        labels);
    this.options = options;
    this.parameters = weights.classifierParameters();
    this.decayed = new java.util.HashSet<>();
    for (Map.Entry<String, NDArray> p : parameters.entrySet()) {
      p.getValue().setRequiresGradient(true);
      if (isDecayed(p.getKey())) {
        decayed.add(p.getKey());
      }
    }
    this.totalSteps = options.epochs() * options.stepsPerEpoch(trainInputs);
    ParameterTracker lr = schedule(options, totalSteps);
    this.withDecay = new OwnedAdamW(AdamW.builder().optLearningRateTracker(lr)
        .optWeightDecays((float) options.weightDecay()));
    this.withoutDecay = new OwnedAdamW(AdamW.builder().optLearningRateTracker(lr).optWeightDecays(0f));
    this.shuffle = new Random(options.seed());
    // torch's generator draws the dropout masks
    ai.djl.engine.Engine.getEngine(ENGINE).setRandomSeed((int) options.seed());
  }

  /**
   * Loads a checkpoint for fine-tuning into a classifier of {@code labels}.
   *
   * @param trainInputs how many training inputs each epoch has (fixes the learning-rate schedule)
   */
  public static Trainer start(BertConfig config, Safetensors file, List<String> labels, FineTuneOptions options,
      int trainInputs) {
    if (config.family() != io.headscope.model.core.Family.BERT) {
      throw new HeadScopeException("Fine-tuning builds BERT's sequence classifier; this is "
          + config.family().withArticle() + ", whose classifier head HeadScope does not build yet.");
    }
    if (labels.size() < 2) {
      throw new HeadScopeException("A classifier needs at least two labels, got " + labels + ".");
    }
    if (trainInputs < 1) {
      throw new HeadScopeException("There is nothing to train on: no training input.");
    }
    NDManager manager = NDManager.newBaseManager(Device.cpu(), ENGINE);
    try {
      Random init = new Random(options.seed());
      BertWeights w = BertWeights.load(config, file, manager, arrays -> newHead(arrays, config, labels.size(), init));
      return new Trainer(manager, w, labels, options, trainInputs);
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  /** The classifier's config: the checkpoint's, with the labels as {@code id2label}. */
  public BertConfig config() {
    return config;
  }

  public FineTuneOptions options() {
    return options;
  }

  /** Optimizer steps over all epochs. */
  public int totalSteps() {
    return totalSteps;
  }

  /**
   * One pass over the training inputs in an order shuffled with the seed, one optimizer step per
   * batch.
   *
   * @throws CancellationException when {@code cancelled} turns true (checked before every step); the
   *     weights are then those of some step within the epoch
   */
  public EpochReport epoch(int epoch, List<TrainingExample> train, TrainingListener listener,
      BooleanSupplier cancelled) {
    long start = System.nanoTime();
    List<TrainingExample> order = new ArrayList<>(train);
    Collections.shuffle(order, shuffle);
    int b = options.batchSize();
    int steps = options.stepsPerEpoch(order.size());
    double lossSum = 0;
    int right = 0;
    forwardNanos = 0;
    backwardNanos = 0;
    optimizerNanos = 0;
    for (int s = 0; s < steps; s++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException();
      }
      List<TrainingExample> batch = order.subList(s * b, Math.min(order.size(), (s + 1) * b));
      StepResult r = step(batch);
      lossSum += r.loss() * batch.size();
      right += r.right();
      listener.step(epoch, s + 1, steps, lossSum / Math.min(order.size(), (s + 1) * b));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new EpochReport(epoch, options.epochs(), steps, lossSum / order.size(), right / (double) order.size(),
        Double.NaN, Double.NaN, seconds,
        new EpochReport.StepTimes(forwardNanos / 1e9, backwardNanos / 1e9, optimizerNanos / 1e9));
  }

  private long forwardNanos;
  private long backwardNanos;
  private long optimizerNanos;

  record StepResult(double loss, int right) {}

  /** One optimizer step on a batch: forward with dropout, backward, AdamW. */
  StepResult step(List<TrainingExample> batch) {
    try (NDManager scope = manager.newSubManager()) {
      Pass pass = forwardBackward(scope, batch, options.dropout());
      long t0 = System.nanoTime();
      for (Map.Entry<String, NDArray> p : parameters.entrySet()) {
        NDArray w = p.getValue();
        try (NDArray g = w.getGradient()) {
          (decayed.contains(p.getKey()) ? withDecay : withoutDecay).update(p.getKey(), w, g);
          g.subi(g); // torch adds the next backward's gradient to this one
        }
      }
      optimizerNanos += System.nanoTime() - t0;
      return new StepResult(pass.loss, pass.right);
    }
  }

  /** The gradients of the batch's loss without dropout and without a step (tests of the optimizer). */
  Map<String, float[]> gradients(List<TrainingExample> batch) {
    Map<String, float[]> out = new LinkedHashMap<>();
    try (NDManager scope = manager.newSubManager()) {
      forwardBackward(scope, batch, 0);
      for (Map.Entry<String, NDArray> p : parameters.entrySet()) {
        try (NDArray g = p.getValue().getGradient()) {
          out.put(p.getKey(), g.toFloatArray());
          g.subi(g);
        }
      }
    }
    return out;
  }

  private record Pass(double loss, int right) {}

  private Pass forwardBackward(NDManager scope, List<TrainingExample> batch, double dropout) {
    List<Encoding> inputs = batch.stream().map(TrainingExample::input).toList();
    long[] gold = batch.stream().mapToLong(TrainingExample::label).toArray();
    Batch in = Batch.of(scope, inputs);
    NDArray loss;
    NDArray logits;
    long t0 = System.nanoTime();
    try (GradientCollector collector = scope.getEngine().newGradientCollector()) {
      Hooks hooks = dropoutHooks((float) dropout);
      NDArray x = encoder.embed(in.ids(), in.segments(), hooks);
      x = encoder.encode(x, encoder.scoreMask(in.real()), 0, config.numHiddenLayers(), hooks); // (B, T, d)
      NDArray pooled = drop(encoder.pooled(x), (float) dropout); // (B, d)
      logits = encoder.classify(pooled); // (B, labels)
      NDArray oneHot = scope.create(gold).oneHot(config.id2label().size()); // (B, labels)
      loss = logits.logSoftmax(-1).mul(oneHot).sum(new int[] {1}).mean().neg(); // cross-entropy
      long t1 = System.nanoTime();
      forwardNanos += t1 - t0;
      collector.backward(loss);
      backwardNanos += System.nanoTime() - t1;
    }
    float value = loss.getFloat();
    if (!Float.isFinite(value)) {
      throw new HeadScopeException("Training diverged (the loss is " + value + "); try a smaller --lr.");
    }
    long[] predicted = logits.argMax(-1).toLongArray();
    int right = 0;
    for (int i = 0; i < gold.length; i++) {
      right += predicted[i] == gold[i] ? 1 : 0;
    }
    return new Pass(value, right);
  }

  /**
   * The classifier's logits for each input, as the trained model gives them (no dropout), in batches:
   * {@code [input][label]}.
   */
  public float[][] logits(List<Encoding> inputs) {
    float[][] out = new float[inputs.size()][];
    int labels = config.id2label().size();
    for (int from = 0; from < inputs.size(); from += EVAL_BATCH) {
      List<Encoding> chunk = inputs.subList(from, Math.min(inputs.size(), from + EVAL_BATCH));
      try (NDManager scope = manager.newSubManager()) {
        Batch in = Batch.of(scope, chunk);
        Hooks none = new Hooks();
        NDArray x = encoder.embed(in.ids(), in.segments(), none);
        x = encoder.encodeLayerByLayer(x, encoder.scoreMask(in.real()), 0, config.numHiddenLayers(), none);
        float[] flat = encoder.classifierLogits(x).toFloatArray();
        for (int i = 0; i < chunk.size(); i++) {
          out[from + i] = java.util.Arrays.copyOfRange(flat, i * labels, (i + 1) * labels);
        }
      }
    }
    return out;
  }

  /**
   * The classifier's weights under Hugging Face's {@code BertForSequenceClassification} names, as
   * float32 in Java memory, ready for a safetensors file (the fused query/key/value split again).
   */
  public List<FloatTensor> tensors() {
    List<FloatTensor> out = new ArrayList<>();
    int d = config.hiddenSize();
    for (Map.Entry<String, NDArray> p : parameters.entrySet()) {
      String name = p.getKey();
      NDArray a = p.getValue();
      float[] data = a.toFloatArray();
      long[] shape = a.getShape().getShape();
      if (name.contains(".qkv.")) {
        String suffix = name.endsWith(".weight") ? ".weight" : ".bias";
        String stem = name.substring(0, name.indexOf(".qkv.")) + ".";
        int rows = data.length / 3; // d x d for a weight, d for a bias
        String[] parts = {"query", "key", "value"};
        for (int i = 0; i < 3; i++) {
          long[] partShape = shape.length == 2 ? new long[] {d, shape[1]} : new long[] {d};
          out.add(new FloatTensor(stem + parts[i] + suffix, partShape,
              java.util.Arrays.copyOfRange(data, i * rows, (i + 1) * rows)));
        }
      } else {
        out.add(new FloatTensor(name, shape, data));
      }
    }
    return out;
  }

  /** The trained arrays' current values by their internal names (tests of the optimizer). */
  Map<String, float[]> parameterValues() {
    Map<String, float[]> out = new LinkedHashMap<>();
    parameters.forEach((name, a) -> out.put(name, a.toFloatArray()));
    return out;
  }

  /** Native arrays alive now: the weights and anything a step failed to free (tests). */
  public long liveNativeArrays() {
    return Engine.countResources(manager);
  }

  /** Hugging Face's rule: no weight decay on biases and LayerNorm gains. */
  static boolean isDecayed(String name) {
    return !name.endsWith(".bias") && !name.contains("LayerNorm.weight");
  }

  /**
   * {@code get_linear_schedule_with_warmup} from DJL's trackers: the step after {@code s} finished ones
   * (AdamW counts from 1) has {@code lr * s / W} during the warm-up and {@code lr * (T - s) / (T - W)} after.
   */
  private static ParameterTracker schedule(FineTuneOptions o, int total) {
    float lr = (float) o.learningRate();
    int w = o.warmupSteps(total);
    Tracker decay = LinearTracker.builder().setBaseValue(lr).optSlope(-lr / (total - w)).optMaxUpdates(total - w)
        .build();
    Tracker s = WarmUpTracker.builder().setMainTracker(decay).optWarmUpSteps(w).optWarmUpBeginValue(0f)
        .optWarmUpMode(WarmUpTracker.Mode.LINEAR).build();
    return (parameterId, update) -> s.getNewValue(update - 1);
  }

  private Hooks dropoutHooks(float p) {
    Hooks hooks = new Hooks();
    if (p > 0) {
      UnaryOperator<NDArray> drop = a -> drop(a, p);
      hooks.intervene(HookPoint.embed(), drop);
      for (int l = 0; l < config.numHiddenLayers(); l++) {
        hooks.intervene(HookPoint.of(HookPoint.Kind.ATTN_PATTERN, l), drop); // attention_probs_dropout_prob
        hooks.intervene(HookPoint.of(HookPoint.Kind.ATTN_OUT, l), drop); // before the residual sum
        hooks.intervene(HookPoint.of(HookPoint.Kind.MLP_OUT, l), drop);
      }
    }
    return hooks;
  }

  private static NDArray drop(NDArray a, float p) {
    return p > 0 ? Dropout.dropout(a, p, true).singletonOrThrow() : a;
  }

  /** Adds the pooler (when absent) and a new classifier (unless one with as many labels exists). */
  private static void newHead(Map<String, NDArray> arrays, BertConfig config, int labels, Random init) {
    NDManager m = arrays.values().iterator().next().getManager();
    int d = config.hiddenSize();
    if (!arrays.containsKey("pooler.dense.weight") && !arrays.containsKey("bert.pooler.dense.weight")) {
      arrays.put("bert.pooler.dense.weight", normal(m, init, d, d));
      arrays.put("bert.pooler.dense.bias", m.zeros(new Shape(d)));
    }
    NDArray old = arrays.get("classifier.weight");
    if (old == null || old.getShape().get(0) != labels || !arrays.containsKey("classifier.bias")) {
      for (String n : List.of("classifier.weight", "classifier.bias")) {
        NDArray gone = arrays.remove(n);
        if (gone != null) {
          gone.close();
        }
      }
      arrays.put("classifier.weight", normal(m, init, labels, d));
      arrays.put("classifier.bias", m.zeros(new Shape(labels)));
    }
  }

  private static NDArray normal(NDManager m, Random r, int rows, int cols) {
    float[] v = new float[rows * cols];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) (r.nextGaussian() * INIT_STD);
    }
    return m.create(v, new Shape(rows, cols));
  }

  @Override
  public void close() {
    withDecay.close();
    withoutDecay.close();
    weights.close();
    manager.close();
  }

  /**
   * DJL's AdamW, whose moment arrays it creates detached from every manager: this one keeps them to
   * free them when training ends (bert-base's are 880 MB).
   */
  private static final class OwnedAdamW extends AdamW {
    private final Set<NDArray> state = Collections.newSetFromMap(new IdentityHashMap<>());

    OwnedAdamW(AdamW.Builder builder) {
      super(builder);
    }

    @Override
    protected NDArray withDefaultState(Map<String, Map<Device, NDArray>> s, String key, Device device,
        java.util.function.Function<String, NDArray> defaultFunction) {
      NDArray a = super.withDefaultState(s, key, device, defaultFunction);
      state.add(a);
      return a;
    }

    void close() {
      state.forEach(NDArray::close);
      state.clear();
    }
  }
}
