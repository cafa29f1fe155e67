package io.headscope.model.engine;

import io.headscope.model.core.HeadScopeException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a run captured, as plain Java arrays: TransformerLens's {@code ActivationCache}. Batch
 * tensors keep the batch's padding; {@link RunResult#lengths()} says how much of each row is real.
 */
public final class ActivationCache {
  private final Map<HookPoint, Activation> before = new HashMap<>();
  private final Map<HookPoint, Activation> after = new HashMap<>();
  private final Map<Capture.Derived, Map<Integer, Activation>> derived = new HashMap<>();
  private final Map<Capture.Derived, Map<Integer, SpillFile.Region>> spilled = new HashMap<>();
  private SpillFile spill; // made at the first array a run writes out of memory

  void put(HookPoint p, Capture.Stage stage, Activation a) {
    (stage == Capture.Stage.BEFORE_INTERVENTIONS ? before : after).put(p, a);
  }

  void putDerived(Capture.Derived kind, int layer, Activation a) {
    derived.computeIfAbsent(kind, k -> new HashMap<>()).put(layer, a);
  }

  /** Writes a derived quantity to this run's {@link SpillFile} instead of keeping it in memory. */
  void spillDerived(Capture.Derived kind, int layer, ai.djl.ndarray.NDArray a) {
    if (spill == null) {
      spill = SpillFile.open();
    }
    spilled.computeIfAbsent(kind, k -> new HashMap<>()).put(layer, spill.append(a));
  }

  /** A derived quantity of one layer that the run wrote to its spill file (the queries and group keys). */
  public SpillFile.Region spilled(Capture.Derived kind, int layer) {
    SpillFile.Region r = spilled.getOrDefault(kind, Map.of()).get(layer);
    if (r == null) {
      throw new HeadScopeException("The run did not keep " + kind + " for layer " + layer + ".");
    }
    return r;
  }

  /** The value captured at a point (after interventions if both stages were captured). */
  public Activation get(HookPoint p) {
    Activation a = after.containsKey(p) ? after.get(p) : before.get(p);
    if (a == null) {
      throw new HeadScopeException("The run did not capture " + p + ": captured " + points() + ".");
    }
    return a;
  }

  public Activation get(HookPoint p, Capture.Stage stage) {
    Activation a = (stage == Capture.Stage.BEFORE_INTERVENTIONS ? before : after).get(p);
    if (a == null) {
      throw new HeadScopeException("The run did not capture " + p + " " + stage + ".");
    }
    return a;
  }

  public boolean has(HookPoint p) {
    return after.containsKey(p) || before.containsKey(p);
  }

  /** A derived quantity of one layer ({@link Capture.Derived}). */
  public Activation derived(Capture.Derived kind, int layer) {
    Activation a = derived.getOrDefault(kind, Map.of()).get(layer);
    if (a == null) {
      throw new HeadScopeException("The run did not compute " + kind + " for layer " + layer + ".");
    }
    return a;
  }

  public Set<HookPoint> points() {
    Set<HookPoint> all = new java.util.TreeSet<>(java.util.Comparator.comparing(HookPoint::layer)
        .thenComparing(HookPoint::kind));
    all.addAll(before.keySet());
    all.addAll(after.keySet());
    return Collections.unmodifiableSet(all);
  }
}
