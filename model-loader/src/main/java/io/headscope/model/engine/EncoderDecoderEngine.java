package io.headscope.model.engine;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.norm.LayerNorm;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.EncoderDecoderConfig;
import io.headscope.model.core.EncoderDecoderMask;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.core.Parts;
import java.nio.file.Path;
import java.util.List;

/**
 * The forward pass of an encoder-decoder (T5, BART): an encoder stack over the source, a decoder stack
 * over the target whose layers add a cross-attention block reading the encoder's output. Built from the
 * parts the single-stack engine names ({@link Parts}: the norm and its place, the MLP, the biases, the
 * embeddings' scale; {@link BertEncoder#dense} and {@link BertEncoder#gelu} are its products and GELUs),
 * plus what is new: T5's relative position bias ({@link io.headscope.model.core.RelativeBuckets}) and
 * cross-attention as a kind of attention with hook points of its own ({@link HookPoint.Kind#CROSS_ATTN_PATTERN}).
 * Not {@link BertEncoder} bent to two stacks: a stack's layer here has up to three blocks and two inputs.
 *
 * <p>Each stack runs with its own {@link Hooks}: the points are the single-stack points ({@code
 * blocks.L.attn.hook_pattern}) read as TransformerLens's HookedEncoderDecoder names them, {@code
 * encoder.L.attn.hook_pattern}, {@code decoder.L.attn.hook_pattern}, {@code decoder.L.cross_attn.hook_pattern}.
 * Head masks act on each kind's pattern exactly as {@link HeadMasking} does for one stack.
 *
 * <p>One input at a time (batch 1, no padding). Memory as {@link Engine}: the weights in a manager held
 * for the engine's life, every call in a sub-manager closed before it returns.
 *
 * <p>Shapes: S source tokens, T target tokens, H heads, dh head size, d {@code d_model}.
 */
public final class EncoderDecoderEngine implements AutoCloseable {
  private final NDManager manager;
  private final EncoderDecoderWeights w;
  private final EncoderDecoderConfig c;

  private EncoderDecoderEngine(NDManager manager, EncoderDecoderWeights w) {
    this.manager = manager;
    this.w = w;
    this.c = w.config;
  }

  /** Loads and checks the weights of one checkpoint or its shards ({@code where}: the file or index, for messages). */
  public static EncoderDecoderEngine load(EncoderDecoderConfig config, List<Safetensors> files, Path where) {
    NDManager manager = NDManager.newBaseManager(Device.cpu(), "PyTorch");
    try {
      return new EncoderDecoderEngine(manager, EncoderDecoderWeights.load(config, files, where, manager));
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  public EncoderDecoderConfig config() {
    return c;
  }

  /**
   * The encoder over {@code source}, the decoder over {@code target} (its input as given: no shifting), the
   * mask's heads switched off in their kinds, every map kept; with {@code logits} the head's logits at every
   * target position.
   */
  public EncoderDecoderRun run(long[] source, long[] target, EncoderDecoderMask mask, boolean logits) {
    if (source.length == 0 || target.length == 0) {
      throw new HeadScopeException("An encoder-decoder needs a source and a target of at least one token each.");
    }
    for (long[] ids : new long[][] {source, target}) {
      if (ids.length > c.maxTokens()) {
        throw new HeadScopeException("An input of " + ids.length + " tokens is longer than this model's "
            + c.maxTokens() + " positions.");
      }
      for (long id : ids) {
        if (id < 0 || id >= c.vocabSize()) {
          throw new HeadScopeException("Token id " + id + " is outside the vocabulary of " + c.vocabSize() + ".");
        }
      }
    }
    int s = source.length;
    int t = target.length;
    float[][][][] enc = new float[c.encoderLayers()][][][];
    float[][][][] dec = new float[c.decoderLayers()][][][];
    float[][][][] cross = new float[c.decoderLayers()][][][];
    try (NDManager scope = manager.newSubManager()) {
      Hooks encHooks = new Hooks();
      Hooks decHooks = new Hooks();
      keep(encHooks, HookPoint.Kind.ATTN_PATTERN, c.encoderLayers(), enc);
      keep(decHooks, HookPoint.Kind.ATTN_PATTERN, c.decoderLayers(), dec);
      keep(decHooks, HookPoint.Kind.CROSS_ATTN_PATTERN, c.decoderLayers(), cross);
      switchOff(scope, encHooks, HookPoint.Kind.ATTN_PATTERN, mask.of(AttentionKind.ENCODER), c.encoderHeads(),
          c.encoderLayers(), visibility(scope, s, s, false));
      switchOff(scope, decHooks, HookPoint.Kind.ATTN_PATTERN, mask.of(AttentionKind.DECODER), c.decoderHeads(),
          c.decoderLayers(), visibility(scope, t, t, true));
      switchOff(scope, decHooks, HookPoint.Kind.CROSS_ATTN_PATTERN, mask.of(AttentionKind.CROSS), c.decoderHeads(),
          c.decoderLayers(), visibility(scope, t, s, false));
      NDArray memory = stack(scope.create(source, new Shape(1, s)), null, w.encoder, c.encoder(), false, encHooks);
      NDArray out = stack(scope.create(target, new Shape(1, t)), memory, w.decoder, c.decoder(), true, decHooks);
      float[][] lm = logits ? logits(out, t) : null;
      return new EncoderDecoderRun(enc, dec, cross, lm);
    }
  }

  /** Copies every layer's pattern (1, H, Q, K) at {@code kind} into {@code into[layer][head][q][k]}. */
  private static void keep(Hooks hooks, HookPoint.Kind kind, int layers, float[][][][] into) {
    for (int l = 0; l < layers; l++) {
      int layer = l;
      hooks.observeAfter(HookPoint.of(kind, l), a -> {
        Shape sh = a.getShape();
        int h = (int) sh.get(1);
        int q = (int) sh.get(2);
        int k = (int) sh.get(3);
        float[] flat = a.toFloatArray();
        float[][][] maps = new float[h][q][k];
        for (int i = 0; i < h; i++) {
          for (int j = 0; j < q; j++) {
            System.arraycopy(flat, (i * q + j) * k, maps[i][j], 0, k);
          }
        }
        into[layer] = maps;
      });
    }
  }

  /**
   * The heads of one kind switched off at its pattern, as {@link HeadMasking} does for one stack: zero, or
   * a uniform row over the keys the query may see ({@code uniform}: 1 / their number).
   */
  private static void switchOff(NDManager scope, Hooks hooks, HookPoint.Kind kind, HeadMask mask, int heads, int layers,
      NDArray uniform) {
    if (mask.isEmpty()) {
      return;
    }
    float[][] m = mask.multipliers(layers, heads);
    for (int l = 0; l < layers; l++) {
      boolean any = false;
      for (float v : m[l]) {
        any |= v != 1f;
      }
      if (any) {
        NDArray multipliers = scope.create(m[l], new Shape(1, heads, 1, 1));
        hooks.intervene(HookPoint.of(kind, l),
            HeadMasking.pattern(multipliers, mask.mode() == HeadMask.Mode.UNIFORM ? uniform : null));
      }
    }
  }

  /** (1, 1, Q, K): 1 / (keys query i sees) where it sees key j, else 0. */
  private static NDArray visibility(NDManager scope, int q, int k, boolean causal) {
    float[] u = new float[q * k];
    for (int i = 0; i < q; i++) {
      int seen = causal ? i + 1 : k;
      for (int j = 0; j < seen; j++) {
        u[i * k + j] = 1f / seen;
      }
    }
    return scope.create(u, new Shape(1, 1, q, k));
  }

  /** One stack over {@code ids} (1, N); the decoder's layers also read {@code memory} (1, S, d). */
  private NDArray stack(NDArray ids, NDArray memory, EncoderDecoderWeights.Stack st, Parts parts, boolean dec,
      Hooks hooks) {
    NDManager scope = ids.getManager();
    int n = (int) ids.getShape().get(1);
    int h = c.heads(dec);
    NDArray x = w.shared.get(scope, new NDIndex("{}", ids)); // (1, N, d)
    if (parts.embeddingScale() != 1) { // BART's scale_embedding: times sqrt(d_model), a float32
      x = x.mul(Scalars.of(x, (float) parts.embeddingScale()));
    }
    if (st.positions() != null) { // BART: learned positions 0.. N-1 stored from row 2 on
      NDArray pos = scope.arange(EncoderDecoderConfig.BART_POSITION_OFFSET, n + EncoderDecoderConfig.BART_POSITION_OFFSET)
          .toType(ai.djl.ndarray.types.DataType.INT64, false);
      x = x.add(st.positions().get(scope, new NDIndex("{}", pos)));
    }
    if (st.embeddingNorm() != null) {
      x = norm(x, st.embeddingNorm(), parts);
    }
    x = hooks.at(HookPoint.embed(), BertEncoder.finite(x, 0));
    NDArray selfBias = scoreBias(scope, st, h, n, n, dec); // (1, H, N, N) or (1, 1, N, N) or null
    NDArray crossBias = null; // cross-attention: no position bias, nothing masked (one unpadded source)
    for (int l = 0; l < st.layers().length; l++) {
      EncoderDecoderWeights.Layer p = st.layers()[l];
      x = hooks.at(HookPoint.Kind.RESID_PRE, l, x);
      boolean pre = parts.place() == Parts.NormPlace.PRE;
      NDArray a = attention(pre ? norm(x, p.selfNorm(), parts) : x, null, p.self(), h, selfBias, false, l, hooks);
      x = hooks.at(HookPoint.Kind.RESID_MID, l, pre ? x.add(a) : norm(x.add(a), p.selfNorm(), parts));
      if (dec) {
        NDArray ca = attention(pre ? norm(x, p.crossNorm(), parts) : x, memory, p.cross(), h, crossBias, true, l, hooks);
        x = hooks.at(HookPoint.Kind.RESID_MID_CROSS, l, pre ? x.add(ca) : norm(x.add(ca), p.crossNorm(), parts));
      }
      NDArray m = hooks.at(HookPoint.Kind.MLP_OUT, l, mlp(pre ? norm(x, p.mlpNorm(), parts) : x, p, parts, l, hooks));
      x = hooks.at(HookPoint.Kind.RESID_POST, l, BertEncoder.finite(pre ? x.add(m) : norm(x.add(m), p.mlpNorm(), parts), l + 1));
    }
    if (st.finalNorm() != null) { // T5's encoder.final_layer_norm / decoder.final_layer_norm
      x = norm(x, st.finalNorm(), parts);
    }
    return hooks.at(HookPoint.fin(), x);
  }

  /**
   * What is added to a stack's self-attention scores: T5's relative position bias (the first layer's table,
   * shared by every layer, buckets bidirectional in the encoder and causal in the decoder) and, in a
   * decoder, the causal mask: {@code -inf} on later keys (transformers adds the dtype's minimum; both make
   * their probability exactly 0, and -inf cannot be outweighed by a large score, as -10000 could by T5's
   * unscaled ones).
   */
  private NDArray scoreBias(NDManager scope, EncoderDecoderWeights.Stack st, int h, int q, int k, boolean causal) {
    float[][] rel = st.relativeBias();
    if (rel == null && !causal) {
      return null;
    }
    int hh = rel == null ? 1 : h;
    float[] b = new float[hh * q * k];
    for (int i = 0; i < q; i++) {
      for (int j = 0; j < k; j++) {
        boolean later = causal && j > i;
        int bucket = rel == null ? 0 : c.relative().bucket(j - i, !causal);
        for (int head = 0; head < hh; head++) {
          b[(head * q + i) * k + j] = later ? Float.NEGATIVE_INFINITY : rel == null ? 0f : rel[bucket][head];
        }
      }
    }
    return scope.create(b, new Shape(1, hh, q, k));
  }

  /**
   * Multi-head attention of queries from {@code x} (1, Q, d) over keys and values from {@code memory} (cross)
   * or {@code x} itself: {@code softmax(q k^T [/ sqrt(dh)] + bias) v}, then the output projection. BART
   * scales the queries by {@code dh^-0.5} after their bias ({@code BartAttention}); T5 does not scale.
   */
  private NDArray attention(NDArray x, NDArray memory, EncoderDecoderWeights.Attention p, int h, NDArray bias,
      boolean cross, int l, Hooks hooks) {
    NDArray kvIn = memory == null ? x : memory;
    int dh = c.headSize();
    long q = x.getShape().get(1);
    long k = kvIn.getShape().get(1);
    HookPoint.Kind qk = cross ? HookPoint.Kind.CROSS_ATTN_Q : HookPoint.Kind.ATTN_Q;
    NDArray qs = heads(BertEncoder.dense(x, p.q(), p.qb()), h, dh);
    if (c.scaleScores()) {
      qs = qs.mul(Scalars.of(qs, (float) (1 / Math.sqrt(dh))));
    }
    qs = hooks.at(qk, l, qs);
    NDArray ks = hooks.at(cross ? HookPoint.Kind.CROSS_ATTN_K : HookPoint.Kind.ATTN_K, l,
        heads(BertEncoder.dense(kvIn, p.k(), p.kb()), h, dh));
    NDArray vs = hooks.at(cross ? HookPoint.Kind.CROSS_ATTN_V : HookPoint.Kind.ATTN_V, l,
        heads(BertEncoder.dense(kvIn, p.v(), p.vb()), h, dh));
    NDArray scores = qs.matMul(ks.transpose(0, 1, 3, 2)); // (1, H, Q, K)
    if (bias != null) {
      scores = scores.add(bias);
    }
    scores = hooks.at(cross ? HookPoint.Kind.CROSS_ATTN_SCORES : HookPoint.Kind.ATTN_SCORES, l, scores);
    NDArray pattern = hooks.at(cross ? HookPoint.Kind.CROSS_ATTN_PATTERN : HookPoint.Kind.ATTN_PATTERN, l,
        scores.softmax(-1));
    NDArray z = hooks.at(cross ? HookPoint.Kind.CROSS_ATTN_Z : HookPoint.Kind.ATTN_Z, l, pattern.matMul(vs));
    NDArray merged = z.transpose(0, 2, 1, 3).reshape(1, q, (long) h * dh);
    NDArray out = BertEncoder.dense(merged, p.o(), p.ob());
    return hooks.at(cross ? HookPoint.Kind.CROSS_ATTN_OUT : HookPoint.Kind.ATTN_OUT, l, out);
  }

  /** (1, N, H dh) to (1, H, N, dh). */
  private static NDArray heads(NDArray a, int h, int dh) {
    return a.reshape(1, a.getShape().get(1), h, dh).transpose(0, 2, 1, 3);
  }

  /** T5's {@code wo(relu(wi x))} or {@code wo(gelu_new(wi_0 x) * wi_1 x)}; BART's {@code fc2(gelu(fc1 x))}. */
  private NDArray mlp(NDArray x, EncoderDecoderWeights.Layer p, Parts parts, int l, Hooks hooks) {
    NDArray pre = hooks.at(HookPoint.Kind.MLP_PRE, l, BertEncoder.dense(x, p.in(), p.inB()));
    NDArray act = switch (parts.mlp()) {
      case RELU -> ai.djl.nn.Activation.relu(pre);
      case GELU, GATED_GELU -> BertEncoder.gelu(pre, BertConfig.Gelu.of(c.activation()));
      case GATED_SILU -> pre.mul(ai.djl.nn.Activation.sigmoid(pre));
    };
    if (parts.gated()) {
      act = act.mul(BertEncoder.dense(x, p.up(), null));
    }
    NDArray post = hooks.at(HookPoint.Kind.MLP_POST, l, act);
    return BertEncoder.dense(post, p.out(), p.outB());
  }

  /** LayerNorm (BART) or T5LayerNorm ({@code g x / sqrt(mean(x^2) + eps)}: no mean, no bias). */
  private NDArray norm(NDArray x, EncoderDecoderWeights.Norm n, Parts parts) {
    if (parts.rms()) {
      NDArray meanSquare = x.mul(x).mean(new int[] {-1}, true);
      NDArray rms = meanSquare.add(Scalars.of(meanSquare, (float) c.eps())).sqrt();
      return x.div(rms).mul(n.g());
    }
    return LayerNorm.layerNorm(x, new Shape(c.dModel()), n.g(), n.b(), (float) c.eps()).singletonOrThrow();
  }

  /**
   * The head at every target position: T5's decoder output times {@code d_model^-0.5} when tied, then
   * {@code lm_head}; BART's tied head plus {@code final_logits_bias}. (T, V).
   */
  private float[][] logits(NDArray out, int t) {
    NDArray x = out;
    if (c.headScale() != 1) {
      x = x.mul(Scalars.of(x, (float) c.headScale()));
    }
    NDArray z = BertEncoder.dense(x, w.head, w.logitsBias); // (1, T, V)
    BertEncoder.finite(z, BertEncoder.HEAD);
    float[] flat = z.toFloatArray();
    int v = c.vocabSize();
    float[][] rows = new float[t][];
    for (int i = 0; i < t; i++) {
      rows[i] = java.util.Arrays.copyOfRange(flat, i * v, (i + 1) * v);
    }
    return rows;
  }

  @Override
  public void close() {
    manager.close();
  }
}
