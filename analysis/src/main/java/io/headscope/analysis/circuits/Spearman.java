package io.headscope.analysis.circuits;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/** Spearman's rank correlation: Pearson's correlation of the ranks, tied values sharing their mean rank. */
public final class Spearman {
  private Spearman() {}

  /** NaN when fewer than two pairs, or when either side is constant (no ranking to compare). */
  public static double of(double[] a, double[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException(a.length + " against " + b.length + " values");
    }
    if (a.length < 2) {
      return Double.NaN;
    }
    return pearson(ranks(a), ranks(b));
  }

  /** 1-based ranks, ascending, ties averaged. */
  static double[] ranks(double[] v) {
    Integer[] order = IntStream.range(0, v.length).boxed().toArray(Integer[]::new);
    Arrays.sort(order, Comparator.comparingDouble(i -> v[i]));
    double[] r = new double[v.length];
    int i = 0;
    while (i < v.length) {
      int j = i;
      while (j + 1 < v.length && v[order[j + 1]] == v[order[i]]) {
        j++;
      }
      double mean = (i + j) / 2.0 + 1;
      for (int k = i; k <= j; k++) {
        r[order[k]] = mean;
      }
      i = j + 1;
    }
    return r;
  }

  private static double pearson(double[] x, double[] y) {
    double mx = Arrays.stream(x).average().orElse(0);
    double my = Arrays.stream(y).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (int i = 0; i < x.length; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
      syy += (y[i] - my) * (y[i] - my);
    }
    return sxx == 0 || syy == 0 ? Double.NaN : sxy / Math.sqrt(sxx * syy);
  }
}
