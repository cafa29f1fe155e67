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
