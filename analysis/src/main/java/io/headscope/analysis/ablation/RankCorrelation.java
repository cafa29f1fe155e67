package io.headscope.analysis.ablation;

import java.util.Arrays;
import java.util.Comparator;

/** Spearman's rank correlation: Pearson's correlation of the ranks, ties given their mean rank. */
public final class RankCorrelation {
  private RankCorrelation() {}

  /** NaN when either side is constant (no ranking to compare). */
  public static double spearman(double[] x, double[] y) {
    if (x.length != y.length) {
      throw new IllegalArgumentException("lengths differ: " + x.length + " and " + y.length);
    }
    return pearson(ranks(x), ranks(y));
  }

  /** 1-based ranks in ascending order; tied values share the mean of their ranks. */
  public static double[] ranks(double[] v) {
    Integer[] order = new Integer[v.length];
    for (int i = 0; i < v.length; i++) {
      order[i] = i;
    }
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

  /** Pearson's correlation; NaN when either side is constant. */
  public static double pearson(double[] a, double[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("lengths differ: " + a.length + " and " + b.length);
    }
    double ma = Arrays.stream(a).average().orElse(Double.NaN);
    double mb = Arrays.stream(b).average().orElse(Double.NaN);
    double sab = 0;
    double saa = 0;
    double sbb = 0;
    for (int i = 0; i < a.length; i++) {
      sab += (a[i] - ma) * (b[i] - mb);
      saa += (a[i] - ma) * (a[i] - ma);
      sbb += (b[i] - mb) * (b[i] - mb);
    }
    return saa == 0 || sbb == 0 ? Double.NaN : sab / Math.sqrt(saa * sbb);
  }
}
