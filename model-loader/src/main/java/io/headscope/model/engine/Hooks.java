package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The hook points of one forward pass, after TransformerLens: every intermediate the analyses need
 * passes through {@link #at(String, NDArray)} under a stable name where it is computed.
 *
 * <p>A {@code Hooks} object lives for one call: capturing and intervening attach to it, the call runs,
 * and it is dropped, so no hook survives into the next call and the model code never branches on
 * "is this head ablated". At each point the observers see the value first, then the interventions
 * may replace it; this is what lets the attention map be captured before any head mask.
 *
 * <p>Names, with {@code l} the 0-based layer:
 * <ul>
 *   <li>{@code hook_embed}: embeddings after their LayerNorm, (B, T, d)
 *   <li>{@code blocks.l.attn.hook_q}, {@code hook_k}, {@code hook_v}: per-head projections, (B, H, T, dh)
 *   <li>{@code blocks.l.attn.hook_pattern}: softmax attention probabilities, (B, H, T, T)
 *   <li>{@code blocks.l.attn.hook_z}: pattern times values, (B, H, T, dh)
 *   <li>{@code blocks.l.hook_attn_out}: output projection of the heads, (B, T, d)
 *   <li>{@code blocks.l.hook_resid_mid}: after the first LayerNorm, (B, T, d)
 *   <li>{@code blocks.l.hook_resid_post}: the layer's output, (B, T, d)
 * </ul>
 */
public final class Hooks {
  private record Observer(Predicate<String> filter, BiConsumer<String, NDArray> fn) {}

  private record Intervention(String point, UnaryOperator<NDArray> fn) {}

  private final List<Observer> observers = new ArrayList<>();
  private final List<Intervention> interventions = new ArrayList<>();

  /** A fresh set with nothing attached: the plain forward pass. */
  public static Hooks none() {
    return new Hooks();
  }

  public static String pattern(int layer) {
    return "blocks." + layer + ".attn.hook_pattern";
  }

  public static String values(int layer) {
    return "blocks." + layer + ".attn.hook_v";
  }

  public static String residPost(int layer) {
    return "blocks." + layer + ".hook_resid_post";
  }

  /** Sees (never changes) every value whose point name passes the filter. */
  public Hooks observe(Predicate<String> filter, BiConsumer<String, NDArray> fn) {
    observers.add(new Observer(filter, fn));
    return this;
  }

  /** Replaces the value at one point by {@code fn(value)}, after the observers have seen it. */
  public Hooks intervene(String point, UnaryOperator<NDArray> fn) {
    interventions.add(new Intervention(point, fn));
    return this;
  }

  /** The hook point itself: called by the model where {@code value} is computed. */
  public NDArray at(String point, NDArray value) {
    for (Observer o : observers) {
      if (o.filter.test(point)) {
        o.fn.accept(point, value);
      }
    }
    NDArray v = value;
    for (Intervention i : interventions) {
      if (i.point.equals(point)) {
        v = i.fn.apply(v);
      }
    }
    return v;
  }
}
