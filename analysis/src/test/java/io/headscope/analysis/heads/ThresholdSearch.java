package io.headscope.analysis.heads;

import io.headscope.model.AttentionTrace;
import io.headscope.model.Head;
import java.util.List;
import java.util.Locale;

/**
 * Grid search for {@link Thresholds} that best agree with hand labels. Used on the tuning half only.
 */
final class ThresholdSearch {
  static final double[] SECOND = {0.05, 0.10, 0.15, 0.20, 0.30};

  private ThresholdSearch() {}

  /** A labelled map's scores, computed once for each candidate second-column threshold. */
  record Scored(LabelledMaps.Entry entry, double[] vertical, double diagonal, double block) {
    static Scored of(LabelledMaps.Entry e, AttentionTrace t, Head h) {
      double[] v = new double[SECOND.length];
      HeadScore s = null;
      for (int i = 0; i < SECOND.length; i++) {
        s = new HeadClassifier(new Thresholds(SECOND[i], 0.5, 0.5, 0.3, 0.3, 0.5)).classify(t, h);
        v[i] = s.vertical();
      }
      return new Scored(e, v, s.diagonal(), s.block());
    }

    HeadPattern decide(Thresholds t) {
      int i = java.util.Arrays.binarySearch(SECOND, t.secondColumn());
      if (i < 0) {
        throw new IllegalArgumentException("second-column threshold not scored: " + t.secondColumn());
      }
      return t.decide(vertical[i], diagonal, block).category();
    }
  }

  static double agreement(List<Scored> maps, Thresholds t) {
    long hits = maps.stream().filter(s -> s.decide(t) == s.entry().label()).count();
    return maps.isEmpty() ? 0 : hits / (double) maps.size();
  }

  /** Exhaustive over a 0.05 grid; ties keep the first found (lowest thresholds in loop order). */
  static Thresholds best(List<Scored> maps) {
    Thresholds best = null;
    double bestScore = -1;
    double[] grid = new double[18];
    for (int i = 0; i < grid.length; i++) {
      grid[i] = Math.round((0.05 + 0.05 * i) * 100) / 100.0;
    }
    for (double sc : SECOND) {
      for (double v : grid) {
        for (double d : grid) {
          for (double vv : grid) {
            if (vv > v) {
              continue;
            }
            for (double vd : grid) {
              if (vd > d) {
                continue;
              }
              for (double b : grid) {
                Thresholds t = new Thresholds(sc, v, d, vv, vd, b);
                double a = agreement(maps, t);
                if (a > bestScore + 1e-12) {
                  bestScore = a;
                  best = t;
                }
              }
            }
          }
        }
      }
    }
    return best;
  }

  static String confusion(List<Scored> maps, Thresholds t) {
    HeadPattern[] p = HeadPattern.values();
    int[][] m = new int[p.length][p.length];
    for (Scored s : maps) {
      m[s.entry().label().ordinal()][s.decide(t).ordinal()]++;
    }
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%18s", ""));
    for (HeadPattern c : p) {
      out.append(String.format(Locale.ROOT, "%8.8s", c.label()));
    }
    out.append('\n');
    for (HeadPattern r : p) {
      out.append(String.format(Locale.ROOT, "%18s", r.label()));
      for (HeadPattern c : p) {
        out.append(String.format(Locale.ROOT, "%8d", m[r.ordinal()][c.ordinal()]));
      }
      out.append('\n');
    }
    return out.toString();
  }
}
