package io.headscope.analysis.heads;

import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import java.util.List;
import java.util.Locale;

/**
 * Grid search for {@link Thresholds} that best agree with hand labels: on the training folds in
 * cross-validation, and on every labelled map for {@link Thresholds#DEFAULT}.
 * {@code secondColumn} is not searched (the other scores are defined relative to the columns it
 * picks): it stays at the default.
 */
final class ThresholdSearch {
  static final double[] VERTICAL = {0.15, 0.20, 0.25, 0.30, 0.35, 0.40, 0.45};
  static final double[] FOCUS = {0.2, 0.3, 0.4, 0.5};
  static final double[] DIAGONAL = {0.06, 0.08, 0.10, 0.12, 0.15, 0.20, 0.25};
  static final double[] BLOCK = {0.10, 0.15, 0.20, 0.25, 0.30};

  private ThresholdSearch() {}

  /** A labelled map's scores (they do not depend on the thresholds searched). */
  record Scored(LabelledMaps.Entry entry, double vertical, double focus, double diagonal, double block) {
    static Scored of(LabelledMaps.Entry e, AttentionTrace t, Head h) {
      HeadScore s = new HeadClassifier().classify(t, h);
      return new Scored(e, s.vertical(), s.verticalFocus(), s.diagonal(), s.block());
    }

    HeadPattern decide(Thresholds t) {
      return t.decide(vertical, focus, diagonal, block).category();
    }
  }

  static double agreement(List<Scored> maps, Thresholds t) {
    long hits = maps.stream().filter(s -> s.decide(t) == s.entry().label()).count();
    return maps.isEmpty() ? 0 : hits / (double) maps.size();
  }

  /** Exhaustive over the grids; ties keep the first found (lowest thresholds in loop order). */
  static Thresholds best(List<Scored> maps) {
    return tied(maps).get(0);
  }

  /** Every grid point with the best agreement on {@code maps}, in loop order. */
  static List<Thresholds> tied(List<Scored> maps) {
    List<Thresholds> best = new java.util.ArrayList<>();
    double bestScore = -1;
    double second = Thresholds.DEFAULT.secondColumn();
    for (double v : VERTICAL) {
      for (double f : FOCUS) {
        for (double d : DIAGONAL) {
          for (double vv : VERTICAL) {
            for (double vd : DIAGONAL) {
              for (double b : BLOCK) {
                Thresholds t = new Thresholds(second, v, f, d, vv, vd, b);
                double a = agreement(maps, t);
                if (a > bestScore + 1e-12) {
                  bestScore = a;
                  best.clear();
                }
                if (a > bestScore - 1e-12) {
                  best.add(t);
                }
              }
            }
          }
        }
      }
    }
    return best;
  }

  /** Rows: hand label; columns: classifier; then each row's count and recall. */
  static String confusion(List<Scored> maps, Thresholds t) {
    HeadPattern[] p = HeadPattern.values();
    int[][] m = new int[p.length][p.length];
    for (Scored s : maps) {
      m[s.entry().label().ordinal()][s.decide(t).ordinal()]++;
    }
    String[] shortNames = {"vert", "diag", "vert+diag", "block", "hetero"};
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-18s", "label \\ classifier"));
    for (String c : shortNames) {
      out.append(String.format(Locale.ROOT, "%10s", c));
    }
    out.append(String.format(Locale.ROOT, "%8s%8s%n", "n", "recall"));
    for (HeadPattern r : p) {
      out.append(String.format(Locale.ROOT, "%-18s", r.label()));
      int n = 0;
      for (HeadPattern c : p) {
        out.append(String.format(Locale.ROOT, "%10d", m[r.ordinal()][c.ordinal()]));
        n += m[r.ordinal()][c.ordinal()];
      }
      out.append(String.format(Locale.ROOT, "%8d%8.2f%n", n, n == 0 ? 0 : m[r.ordinal()][r.ordinal()] / (double) n));
    }
    return out.toString();
  }
}
