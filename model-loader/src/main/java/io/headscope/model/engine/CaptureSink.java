package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import java.util.ArrayList;
import java.util.List;

/**
 * Attaches a run's {@link Capture}s to its hooks and copies what they keep into an
 * {@link ActivationCache} at once, while the layer's scope is still open: nothing native outlives the
 * layer that computed it.
 */
final class CaptureSink {
  private final ActivationCache cache = new ActivationCache();
  private final BertWeights weights;

  CaptureSink(BertWeights weights) {
    this.weights = weights;
  }

  ActivationCache cache() {
    return cache;
  }

  /** The batch's real lengths, which the head summaries need (set before {@link #attach}). */
  private int[] lengths;

  CaptureSink lengths(int[] real) {
    this.lengths = real.clone();
    return this;
  }

  void attach(Hooks hooks, List<Capture> captures, int from, int to) {
    int layers = weights.config.numHiddenLayers();
    List<HookPoint> points = new ArrayList<>();
    points.add(HookPoint.embed());
    for (int l = from; l < to; l++) {
      for (HookPoint.Kind k : HookPoint.Kind.values()) {
        if (k.perLayer()) {
          points.add(HookPoint.of(k, l));
        }
      }
    }
    if (to == layers) {
      points.add(HookPoint.fin());
    }
    for (Capture c : captures) {
      for (HookPoint p : points) {
        if (c.keeps(p)) {
          if (c.stage() == Capture.Stage.BEFORE_INTERVENTIONS) {
            hooks.observeBefore(p, a -> cache.put(p, c.stage(), copy(a)));
          } else {
            hooks.observeAfter(p, a -> cache.put(p, c.stage(), copy(a)));
          }
        }
      }
      for (int l = from; l < to; l++) {
        if (c.inLayer(l)) {
          for (Capture.Derived d : c.derived()) {
            attachDerived(hooks, c, d, l);
          }
          attachSummaries(hooks, c, l);
        }
      }
    }
  }

  private void attachDerived(Hooks hooks, Capture c, Capture.Derived d, int l) {
    switch (d) {
      case HEAD_SUMMARY, THUMBNAILS -> { } // attachSummaries: one reader of the pattern for both
      // the queries and keys as the scores read them: after any intervention at their points; written to a
      // file as each layer makes them, so that neither the run nor the trace that keeps them holds them in
      // memory (0.4 GB a trace for a 1B Llama at 2,048 tokens)
      case QUERIES -> hooks.observeAfter(HookPoint.of(HookPoint.Kind.ATTN_Q, l), q -> cache.spillDerived(d, l, q));
      case GROUP_KEYS -> hooks.observeAfter(HookPoint.of(HookPoint.Kind.ATTN_K, l),
          k -> cache.spillDerived(d, l, groupKeys(k)));
      case VALUE_NORMS -> hooks.observeAfter(HookPoint.of(HookPoint.Kind.ATTN_V, l),
          v -> cache.putDerived(d, l, copy(valueNorms(l, v))));
      case LAYER_NORM_MAP -> {
        NDArray[] values = new NDArray[1];
        hooks.observeAfter(HookPoint.of(HookPoint.Kind.ATTN_V, l), v -> values[0] = v);
        // the pattern as it acts on the values: after the head masks
        hooks.observeAfter(HookPoint.pattern(l), a -> cache.putDerived(d, l, copy(layerNormMap(l, a, values[0]))));
      }
    }
  }

  /**
   * The head summaries and thumbnails of layer l, read from its pattern a few heads at a time by one {@link
   * HeadSummariser} (the engine then never holds the layer's whole pattern, unless something else reads it).
   */
  private void attachSummaries(Hooks hooks, Capture c, int l) {
    boolean rows = c.derived().contains(Capture.Derived.HEAD_SUMMARY);
    boolean thumbs = c.derived().contains(Capture.Derived.THUMBNAILS);
    if (rows || thumbs) {
      hooks.observePatternChunks(l, new HeadSummariser(weights.config.numAttentionHeads(), lengths,
          thumbs ? c.thumbnailSide() : 0, c.stage() == Capture.Stage.BEFORE_INTERVENTIONS,
          rows ? a -> cache.putDerived(Capture.Derived.HEAD_SUMMARY, l, a) : null,
          thumbs ? a -> cache.putDerived(Capture.Derived.THUMBNAILS, l, a) : null));
    }
  }

  /**
   * One key head per key/value group from the keys at {@code hook_k}, (B, H, T, dh) to (B, K, T, dh): the
   * engine repeats group g's keys for query heads g r .. g r + r - 1 (a copy), so head g r holds them.
   */
  private NDArray groupKeys(NDArray k) {
    int heads = weights.config.numAttentionHeads();
    int groups = weights.config.parts().keyValueHeads();
    if (groups == heads) {
      return k;
    }
    return k.get(new ai.djl.ndarray.index.NDIndex(":, 0:" + heads + ":" + (heads / groups)));
  }

  /**
   * {@code ||f^h(x_j)||} for every head and token from the values v (B, H, T, dh):
   * {@code sqrt(v G_h v^T)} with {@code G_h = W_O^h W_O^h^T} (see {@link BertWeights}).
   */
  private NDArray valueNorms(int layer, NDArray v) {
    NDArray gram = weights.layer(layer).valueGram(); // (H, dh, dh)
    NDArray squared = v.matMul(gram).mul(v).sum(new int[] {-1}); // (B, H, T)
    return squared.maximum(Scalars.of(squared, 0f)).sqrt();
  }

  /**
   * Kobayashi et al.'s layer-level norm map {@code N_ij = || sum_h A^h_ij f^h(x_j) ||}, (B, Ti, Tj).
   * With the per-token Gram matrix {@code G_j[h,h'] = <f^h(x_j), f^h'(x_j)>} this is
   * {@code sqrt(a^T G_j a)} with {@code a = A_{.,i,j}}, so the (T, T, d) tensor is never built.
   */
  private NDArray layerNormMap(int layer, NDArray pattern, NDArray v) {
    NDArray f = weights.transformedValues(layer, v); // (B, H, T, d)
    NDArray fj = f.transpose(0, 2, 1, 3); // (B, T, H, d)
    NDArray gram = fj.matMul(fj.transpose(0, 1, 3, 2)); // (B, Tj, H, H)
    NDArray a = pattern.transpose(0, 3, 2, 1); // (B, Tj, Ti, H)
    NDArray squared = a.matMul(gram).mul(a).sum(new int[] {-1}); // (B, Tj, Ti)
    return squared.maximum(Scalars.of(squared, 0f)).sqrt().transpose(0, 2, 1); // (B, Ti, Tj)
  }

  static Activation copy(NDArray a) {
    long[] s = a.getShape().getShape();
    int[] shape = new int[s.length];
    for (int i = 0; i < s.length; i++) {
      shape[i] = Math.toIntExact(s[i]);
    }
    return new Activation(a.toFloatArray(), shape);
  }
}
