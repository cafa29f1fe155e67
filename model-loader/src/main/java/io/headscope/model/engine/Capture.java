package io.headscope.model.engine;

import java.util.EnumSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one run keeps, copied out as {@link Activation}s into the {@link ActivationCache}: a name
 * filter as TransformerLens's {@code run_with_cache(names_filter=...)}, so a corpus run holds only
 * what it asked for.
 *
 * @param kinds the hook points to keep
 * @param derived quantities computed from the points as the layer ran them (after interventions)
 * @param layers the 0-based layers to keep them for; empty means every layer
 * @param stage whether a point is copied before or after the interventions at that point
 * @param thumbnailSide the side the {@link Derived#THUMBNAILS} are max-pooled to (0 when none are asked for)
 */
public record Capture(Set<HookPoint.Kind> kinds, Set<Derived> derived, Set<Integer> layers, Stage stage,
    int thumbnailSide) {

  /** When, relative to the interventions at a point, its value is copied. */
  public enum Stage {
    /** What the point computed, before any intervention there (a switched-off head's own map). */
    BEFORE_INTERVENTIONS,
    /** What flowed on from the point: the model as it ran. */
    AFTER_INTERVENTIONS
  }

  /** Quantities the engine computes from hook points inside the layer, without keeping the points. */
  public enum Derived {
    /**
     * Per head and token, {@code ||f^h(x_j)|| = ||v^h_j W_O^h||} (Kobayashi et al.), from the values
     * as they flowed on, (B, H, T).
     */
    VALUE_NORMS,
    /**
     * Kobayashi et al.'s layer-level norm map {@code N_ij = || sum_h A^h_ij f^h(x_j) ||} with the
     * pattern as it acted on the values (after head masks), (B, T, T).
     */
    LAYER_NORM_MAP,
    /**
     * Per head and query row, from the pattern ({@link HeadSummariser}): the row's largest weight, its weight
     * on the first token (the attention sink), its entropy in nats, and per key the weight the key receives
     * summed over the real query rows, (B, H, 4, T); padding rows and keys hold 0. The pattern is read at
     * the capture's {@link Stage} (before the head masks: the computed maps).
     */
    HEAD_SUMMARY,
    /** Each head's map max-pooled to at most {@link Capture#thumbnailSide()} cells a side, (B, H, side, side). */
    THUMBNAILS,
    /** Every query head's queries as the scores read them (after rotary), (B, H, T, dh). */
    QUERIES,
    /** The keys as the scores read them, one per key/value group (not repeated for its query heads), (B, K, T, dh). */
    GROUP_KEYS
  }

  /** A capture without thumbnails. */
  public Capture(Set<HookPoint.Kind> kinds, Set<Derived> derived, Set<Integer> layers, Stage stage) {
    this(kinds, derived, layers, stage, 0);
  }

  public Capture {
    kinds = kinds.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(kinds));
    derived = derived.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(derived));
    layers = Set.copyOf(new TreeSet<>(layers));
    if (stage == null) {
      throw new IllegalArgumentException("no stage");
    }
    if (thumbnailSide < 0 || (derived.contains(Derived.THUMBNAILS) && thumbnailSide == 0)) {
      throw new IllegalArgumentException("thumbnail side " + thumbnailSide);
    }
  }

  /** These points at every layer, as the model ran them (after interventions). */
  public static Capture points(HookPoint.Kind... kinds) {
    return new Capture(Set.of(kinds), Set.of(), Set.of(), Stage.AFTER_INTERVENTIONS);
  }

  /** These derived quantities at every layer. */
  public static Capture derived(Derived... derived) {
    return new Capture(Set.of(), Set.of(derived), Set.of(), Stage.AFTER_INTERVENTIONS);
  }

  /**
   * What a run that keeps no full map keeps instead ({@code TraceRequest.Keep.SUMMARIES}): every head's
   * summary and thumbnail, and the queries and group keys from which {@link Engine#attentionMap} recomputes
   * any head's map, at every layer, as computed (before the interventions at each point).
   */
  public static Capture summaries(int thumbnailSide) {
    return new Capture(Set.of(), Set.of(Derived.HEAD_SUMMARY, Derived.THUMBNAILS, Derived.QUERIES, Derived.GROUP_KEYS),
        Set.of(), Stage.BEFORE_INTERVENTIONS, thumbnailSide);
  }

  /** The same capture for only these 0-based layers. */
  public Capture atLayers(Integer... only) {
    return new Capture(kinds, derived, Set.of(only), stage, thumbnailSide);
  }

  /** The same capture, copied before the interventions at each point. */
  public Capture beforeInterventions() {
    return new Capture(kinds, derived, layers, Stage.BEFORE_INTERVENTIONS, thumbnailSide);
  }

  boolean keeps(HookPoint p) {
    return kinds.contains(p.kind()) && inLayer(p.layer());
  }

  boolean inLayer(int layer) {
    return layer < 0 || layers.isEmpty() || layers.contains(layer);
  }
}
