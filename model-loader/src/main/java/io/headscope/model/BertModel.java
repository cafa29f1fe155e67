package io.headscope.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.engine.BertEncoder;
import io.headscope.model.engine.BertWeights;
import io.headscope.model.engine.HeadMasking;
import io.headscope.model.engine.Hooks;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.tokenizer.BertTextEncoder;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;

/**
 * A loaded BERT: the one service the analyses, the CLI and the GUI share.
 *
 * <p>Memory has one owner: {@link #manager} holds the weights for the model's life; every call runs in
 * a sub-manager that is closed before the call returns, and only Java arrays and records leave it.
 * Instances are safe to call from one thread at a time; the app serialises calls on its worker.
 */
public final class BertModel implements AutoCloseable {
  private static final String ENGINE = "PyTorch";

  private final String name;
  private final NDManager manager;
  private final BertWeights weights;
  private final BertEncoder encoder;
  private final BertTextEncoder tokenizer;

  private BertModel(String name, NDManager manager, BertWeights weights, BertTextEncoder tokenizer) {
    this.name = name;
    this.manager = manager;
    this.weights = weights;
    this.encoder = new BertEncoder(weights);
    this.tokenizer = tokenizer;
  }

  /** Loads a model folder; {@code hiddenActOverride} (nullable) replaces the config's GELU. */
  public static BertModel load(ModelFiles files, String hiddenActOverride) {
    BertConfig config = BertConfig.read(files.config());
    if (hiddenActOverride != null) {
      config = config.withHiddenAct(hiddenActOverride);
    }
    NDManager manager = NDManager.newBaseManager(Device.cpu(), ENGINE);
    BertTextEncoder tokenizer = null;
    try (Safetensors st = Safetensors.open(files.weights())) {
      BertWeights weights = BertWeights.load(config, st, manager);
      tokenizer = BertTextEncoder.open(files.tokenizer(), config.maxPositionEmbeddings());
      if (tokenizer.vocabSize() > config.vocabSize()) {
        throw new HeadScopeException(files.tokenizer() + " has " + tokenizer.vocabSize()
            + " tokens but the model's vocabulary has only " + config.vocabSize() + ".");
      }
      return new BertModel(files.name(), manager, weights, tokenizer);
    } catch (RuntimeException e) {
      if (tokenizer != null) {
        tokenizer.close();
      }
      manager.close();
      throw e;
    }
  }

  public static BertModel load(ModelFiles files) {
    return load(files, null);
  }

  public String name() {
    return name;
  }

  public BertConfig config() {
    return weights.config();
  }

  public boolean hasMaskedLmHead() {
    return weights.hasMaskedLmHead();
  }

  public boolean hasClassifier() {
    return weights.hasClassifier();
  }

  /** Class names of the classifier head: config {@code id2label}, else LABEL_0, LABEL_1, ... */
  public List<String> classLabels() {
    List<String> labels = new ArrayList<>(config().id2label());
    for (int i = labels.size(); i < weights.classifierLabels(); i++) {
      labels.add("LABEL_" + i);
    }
    return labels.subList(0, weights.classifierLabels());
  }

  public BertTextEncoder tokenizer() {
    return tokenizer;
  }

  /** Tokenizes a sentence or a pair ({@code b} null for a single sentence). */
  public Encoding encode(String a, String b) {
    return b == null ? tokenizer.encode(a) : tokenizer.encode(a, b);
  }

  /** One input with every head on. */
  public AttentionTrace trace(Encoding input) {
    return trace(List.of(input), HeadMask.NONE, 5).get(0);
  }

  public AttentionTrace trace(Encoding input, HeadMask mask, int topK) {
    return trace(List.of(input), mask, topK).get(0);
  }

  /**
   * Runs a batch in one forward pass. Inputs of different lengths are padded and masked, so each
   * trace equals what the input gives alone.
   */
  public List<AttentionTrace> trace(List<Encoding> inputs, HeadMask mask, int topK) {
    if (inputs.isEmpty()) {
      return List.of();
    }
    BertConfig c = config();
    float[][] m = mask.multipliers(c.numHiddenLayers(), c.numAttentionHeads());
    try (NDManager scope = manager.newSubManager()) {
      Batch batch = Batch.of(scope, inputs);
      Hooks hooks = Hooks.none();
      NDArray[] patterns = new NDArray[c.numHiddenLayers()];
      NDArray[] norms = new NDArray[c.numHiddenLayers()];
      hooks.observe(p -> p.endsWith(".attn.hook_pattern"), (p, a) -> patterns[layerOf(p)] = a);
      hooks.observe(p -> p.endsWith(".attn.hook_v"), (p, v) -> norms[layerOf(p)] = valueNorms(layerOf(p), v));
      if (!mask.isEmpty()) {
        HeadMasking.attach(hooks, new float[][][] {m}, mask.mode(), batch.real, scope);
      }
      NDArray x = encoder.embed(batch.ids, batch.segments, hooks);
      // keeping only each layer's output and its captured pattern and norms
      x = encoder.encodeLayerByLayer(x, encoder.scoreMask(batch.real), 0, hooks,
          l -> new NDArray[] {patterns[l], norms[l]}); // (B, T, d)
      return Readout.traces(this, batch, inputs, mask, patterns, norms, x, topK);
    }
  }

  /**
   * Kobayashi et al.'s layer-level norm map for each input: {@code N_ij = || sum_h A^h_ij f^h(x_j) ||}
   * ({@code [layer][query][key]}), the length of what token j actually contributes to token i
   * through the whole attention layer (sum the head vectors first, then take the norm).
   *
   * <p>With the per-token Gram matrix {@code G_j[h,h'] = <f^h(x_j), f^h'(x_j)>} this is
   * {@code sqrt(a^T G_j a)} with {@code a = A_{.,i,j}}, so the (T, T, d) tensor is never built.
   */
  public List<float[][][]> layerNormMaps(List<Encoding> inputs, HeadMask mask) {
    BertConfig c = config();
    int layers = c.numHiddenLayers();
    float[][] m = mask.multipliers(layers, c.numAttentionHeads());
    try (NDManager scope = manager.newSubManager()) {
      Batch batch = Batch.of(scope, inputs);
      NDArray[] patterns = new NDArray[layers];
      NDArray[] values = new NDArray[layers];
      Hooks hooks = Hooks.none().observe(p -> p.endsWith(".attn.hook_v"), (p, v) -> values[layerOf(p)] = v);
      if (!mask.isEmpty()) {
        HeadMasking.attach(hooks, new float[][][] {m}, mask.mode(), batch.real, scope);
      }
      for (int l = 0; l < layers; l++) {
        int layer = l;
        // registered after the head masks, so it sees the pattern as it acts on the values
        hooks.intervene(Hooks.pattern(l), a -> {
          patterns[layer] = a;
          return a;
        });
      }
      encoder.encode(encoder.embed(batch.ids, batch.segments, hooks), encoder.scoreMask(batch.real), 0, hooks);
      List<float[][][]> out = new ArrayList<>();
      for (int i = 0; i < inputs.size(); i++) {
        out.add(new float[layers][][]);
      }
      for (int l = 0; l < layers; l++) {
        NDArray f = weights.transformedValues(l, values[l]); // (B, H, T, d)
        NDArray fj = f.transpose(0, 2, 1, 3); // (B, T, H, d)
        NDArray gram = fj.matMul(fj.transpose(0, 1, 3, 2)); // (B, Tj, H, H)
        NDArray a = patterns[l].transpose(0, 3, 2, 1); // (B, Tj, Ti, H)
        NDArray norms = a.matMul(gram).mul(a).sum(new int[] {-1}).maximum(0f).sqrt() // (B, Tj, Ti)
            .transpose(0, 2, 1); // (B, Ti, Tj)
        float[] flat = norms.toFloatArray();
        int t = batch.width();
        for (int b = 0; b < inputs.size(); b++) {
          int len = batch.lengths()[b];
          float[][] map = new float[len][len];
          for (int q = 0; q < len; q++) {
            System.arraycopy(flat, (b * t + q) * t, map[q], 0, len);
          }
          out.get(b)[l] = map;
        }
      }
      return out;
    }
  }

  /**
   * {@code ||f^h(x_j)||} for every head and token from the values v (B, H, T, dh):
   * {@code sqrt(v G_h v^T)} with {@code G_h = W_O^h W_O^h^T} (see {@link BertWeights}).
   */
  private NDArray valueNorms(int layer, NDArray v) {
    NDArray gram = weights.layer(layer).valueGram(); // (H, dh, dh)
    return v.matMul(gram).mul(v).sum(new int[] {-1}).maximum(0f).sqrt(); // (B, H, T)
  }

  static int layerOf(String point) {
    int start = point.indexOf('.') + 1;
    return Integer.parseInt(point.substring(start, point.indexOf('.', start)));
  }

  /** The native-memory owner of the weights; sub-managers of it scope each call. */
  public NDManager manager() {
    return manager;
  }

  /** Internal engine access for services in this module (ablation sweeps, gradients). */
  public BertEncoder engine() {
    return encoder;
  }

  @Override
  public void close() {
    tokenizer.close();
    weights.close();
    manager.close();
  }

  /** A padded batch of inputs in native memory: ids, segments and the real-token mask, all (B, T). */
  public record Batch(NDArray ids, NDArray segments, NDArray real, int[] lengths, int width) {
    public static Batch of(NDManager scope, List<Encoding> inputs) {
      int b = inputs.size();
      int t = inputs.stream().mapToInt(Encoding::length).max().orElse(0);
      long[] ids = new long[b * t];
      long[] seg = new long[b * t];
      long[] real = new long[b * t];
      int[] lengths = new int[b];
      for (int i = 0; i < b; i++) {
        Encoding e = inputs.get(i);
        lengths[i] = e.length();
        System.arraycopy(e.ids(), 0, ids, i * t, e.length());
        System.arraycopy(e.segments(), 0, seg, i * t, e.length());
        java.util.Arrays.fill(real, i * t, i * t + e.length(), 1L);
      }
      Shape shape = new Shape(b, t);
      return new Batch(scope.create(ids, shape), scope.create(seg, shape),
          scope.create(real, shape).toType(DataType.INT64, false), lengths, t);
    }
  }
}
