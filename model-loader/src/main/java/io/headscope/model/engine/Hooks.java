package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The hook points of one forward pass, after TransformerLens: the model calls {@link #at} with every
 * intermediate where it is computed, under its {@link HookPoint}.
 *
 * <p>A {@code Hooks} object lives for one call: captures and interventions attach to it, the call
 * runs, and it is dropped, so nothing survives into the next call. At a point, the "before" observers
 * see the value first, then the interventions replace it in the order attached, then the "after"
 * observers see what flows on.
 */
final class Hooks {
  private final Map<HookPoint, List<Consumer<NDArray>>> before = new HashMap<>();
  private final Map<HookPoint, List<UnaryOperator<NDArray>>> interventions = new HashMap<>();
  private final Map<HookPoint, List<Consumer<NDArray>>> after = new HashMap<>();
  /** Per layer, what reads the layer's pattern a few heads at a time ({@link #observePatternChunks}). */
  private final Map<Integer, List<PatternChunks>> chunks = new HashMap<>();

  /**
   * Reads a layer's pattern a few heads at a time, with the scores it came from: what a trace of summaries
   * needs of a layer whose whole (B, H, T, T) pattern it never keeps.
   */
  interface PatternChunks {
    /**
     * Heads {@code h0 .. h0 + c - 1} of the layer at query rows {@code r0 .. r0 + R - 1} and keys {@code 0 .. K -
     * 1}: the scores the softmax read, or null where the pattern seen is not their softmax (after interventions
     * at the pattern), and the pattern, both (B, c, R, K). Where K is less than the width, every later key has
     * weight 0 in these rows (a causal layer's chunk of rows stops at its last query). Chunks come heads by heads,
     * and within them rows in order.
     *
     * @param width the layer's T
     * @param last whether this is the layer's last chunk
     */
    void accept(NDArray scores, NDArray pattern, int h0, int r0, int width, boolean last);

    /** Whether it reads the pattern before the interventions at {@code hook_pattern} (else after them). */
    boolean beforeInterventions();
  }

  Hooks observeBefore(HookPoint p, Consumer<NDArray> fn) {
    before.computeIfAbsent(p, k -> new ArrayList<>()).add(fn);
    return this;
  }

  Hooks intervene(HookPoint p, UnaryOperator<NDArray> fn) {
    interventions.computeIfAbsent(p, k -> new ArrayList<>()).add(fn);
    return this;
  }

  Hooks observeAfter(HookPoint p, Consumer<NDArray> fn) {
    after.computeIfAbsent(p, k -> new ArrayList<>()).add(fn);
    return this;
  }

  Hooks observePatternChunks(int layer, PatternChunks fn) {
    chunks.computeIfAbsent(layer, k -> new ArrayList<>()).add(fn);
    return this;
  }

  /** What reads layer {@code l}'s pattern in chunks of heads (empty when nothing does). */
  List<PatternChunks> patternChunks(int layer) {
    return chunks.getOrDefault(layer, List.of());
  }

  /** Whether anything is attached at a point (the model computes optional points only then). */
  boolean isActive(HookPoint p) {
    return before.containsKey(p) || interventions.containsKey(p) || after.containsKey(p);
  }

  /** The hook point itself: called by the model where {@code value} is computed. */
  NDArray at(HookPoint p, NDArray value) {
    for (Consumer<NDArray> o : before.getOrDefault(p, List.of())) {
      o.accept(value);
    }
    NDArray v = value;
    for (UnaryOperator<NDArray> i : interventions.getOrDefault(p, List.of())) {
      v = i.apply(v);
    }
    for (Consumer<NDArray> o : after.getOrDefault(p, List.of())) {
      o.accept(v);
    }
    return v;
  }

  NDArray at(HookPoint.Kind kind, int layer, NDArray value) {
    return at(HookPoint.of(kind, layer), value);
  }
}
