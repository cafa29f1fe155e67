package io.headscope.analysis.ablation;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.ProgressListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Pruning curves (Michel et al. 2019, section 5; METHODS.md, "Pruning curves"): heads are switched off
 * cumulatively, a share of all heads per step, in a chosen order, and the metric is measured after each
 * step (and before the first).
 *
 * <p>Schedule: after step {@code k} the first {@code n_k = min(N, floor(k * step * N + 1/2))} heads of
 * the order are off (N heads in all; round half up, computed in double); the steps go on until all N
 * are off. A step that would add no head is left out, so every row prunes at least one more head.
 */
public final class Pruning {
  public enum Order {
    /** Michel et al.: the least important remaining heads, importance re-estimated on the pruned model. */
    IMPORTANCE,
    /** A seeded random permutation of all heads. */
    RANDOM,
    /** By the single-head sweep's delta of the intact model, computed once: the most harmless removal first. */
    SWEEP;

    public static Order parse(String s) {
      return switch (s == null ? "" : s.trim().toLowerCase(Locale.ROOT)) {
        case "importance" -> IMPORTANCE;
        case "random" -> RANDOM;
        case "sweep" -> SWEEP;
        default -> throw new HeadScopeException("Order \"" + s + "\" is unknown: use importance, random or sweep.");
      };
    }
  }

  /**
   * One row of the curve.
   *
   * @param pruned the heads off after this step, in the order they were pruned
   */
  public record Step(int step, int headsPruned, double sharePruned, double metric, List<Head> pruned) {
    public Step {
      pruned = List.copyOf(pruned);
    }
  }

  /** The curve: its metric's name, the order, and the steps from 0 (nothing pruned) to all heads pruned. */
  public record Curve(String metric, Order order, List<Step> steps) {
    public Curve {
      steps = List.copyOf(steps);
    }
  }

  private Pruning() {}

  /** {@code n_k} for k = 0, 1, ... with steps that add no head left out; the last is {@code total}. */
  public static int[] schedule(int total, double step) {
    if (!(step > 0 && step <= 1)) {
      throw new HeadScopeException("The step must be a share above 0 and at most 1, got " + step + ".");
    }
    List<Integer> counts = new ArrayList<>(List.of(0));
    for (int k = 1; counts.get(counts.size() - 1) < total; k++) {
      int n = (int) Math.min(total, Math.floor(k * step * total + 0.5));
      if (n > counts.get(counts.size() - 1)) {
        counts.add(n);
      }
    }
    return counts.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Prunes the model's heads in {@code order} and measures {@code target} at every step.
   *
   * @param layers the model's layers
   * @param heads heads per layer
   * @param seed the seed of {@link Order#RANDOM}
   */
  public static Curve run(PruneTarget target, int layers, int heads, Order order, double step, long seed,
      ProgressListener progress, BooleanSupplier cancelled) {
    List<Head> all = Head.all(layers, heads);
    int[] counts = schedule(all.size(), step);
    // a share of the progress bar per step: the ranking (importance, the sweep) costs more than a measure
    double perStep = 1.0 / counts.length;
    List<Head> fixed = switch (order) {
      case RANDOM -> {
        List<Head> shuffled = new ArrayList<>(all);
        Collections.shuffle(shuffled, new Random(seed));
        yield shuffled;
      }
      case SWEEP -> byDescending(all, target.sweepDelta(part(progress, 0, perStep), cancelled));
      case IMPORTANCE -> null;
    };
    Set<Head> off = new LinkedHashSet<>();
    List<Step> steps = new ArrayList<>();
    for (int k = 0; k < counts.length; k++) {
      double from = k * perStep;
      if (k > 0) {
        int add = counts[k] - counts[k - 1];
        List<Head> next = fixed != null ? fixed.subList(counts[k - 1], counts[k])
            : leastImportant(all, off, target.importance(off, part(progress, from, from + perStep * 0.8), cancelled),
                add);
        off.addAll(next);
      }
      progress.progress("Step " + k + " of " + (counts.length - 1) + ": " + off.size() + " heads off",
          from + perStep * 0.8);
      double metric = target.measure(off, cancelled);
      steps.add(new Step(k, off.size(), off.size() / (double) all.size(), metric, new ArrayList<>(off)));
    }
    progress.progress("Done", 1);
    return new Curve(target.metric(), order, steps);
  }

  /**
   * The {@code count} remaining heads of least importance (ties: the earlier head first), importance
   * normalised by its l2 norm within each layer over the remaining heads (Michel et al.): a pruned head's
   * score is set to 0 first (in zero mode its gradient is 0 already; in uniform mode it is not).
   */
  static List<Head> leastImportant(List<Head> all, Set<Head> off, double[][] importance, int count) {
    double[][] raw = new double[importance.length][];
    for (int l = 0; l < importance.length; l++) {
      raw[l] = importance[l].clone();
    }
    List<Head> remaining = new ArrayList<>();
    for (Head h : all) {
      if (off.contains(h)) {
        raw[h.layer()][h.head()] = 0;
      } else {
        remaining.add(h);
      }
    }
    double[][] normalized = ImportanceResult.normalizePerLayer(raw);
    remaining.sort(Comparator.comparingDouble((Head h) -> normalized[h.layer()][h.head()]));
    return remaining.subList(0, count);
  }

  /** Heads by descending {@code delta} (ties: the earlier head first): removals that cost least come first. */
  static List<Head> byDescending(List<Head> all, double[][] delta) {
    List<Head> out = new ArrayList<>(all);
    out.sort(Comparator.comparingDouble((Head h) -> -delta[h.layer()][h.head()]));
    return out;
  }

  private static ProgressListener part(ProgressListener p, double from, double to) {
    return (stage, f) -> p.progress(stage, f < 0 ? f : from + f * (to - from));
  }
}
