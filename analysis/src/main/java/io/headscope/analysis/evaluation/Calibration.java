package io.headscope.analysis.evaluation;

import java.util.ArrayList;
import java.util.List;

/**
 * Does a classifier's confidence mean something? Items are put in bins of confidence and each bin's
 * agreement with the reference is counted: for a useful confidence, agreement rises bin by bin.
 *
 * @param bins the bins, lowest confidence first; empty bins are kept (count 0)
 */
public record Calibration(List<Bin> bins) {

  /**
   * One bin, {@code [from, to)} (the last one closed at 1).
   *
   * @param count items whose confidence fell here
   * @param agreed of them, those the classifier got right
   * @param meanConfidence their mean confidence (NaN when empty)
   */
  public record Bin(double from, double to, long count, long agreed, double meanConfidence) {
    /** The bin's agreement (NaN when empty). */
    public double agreement() {
      return count == 0 ? Double.NaN : agreed / (double) count;
    }
  }

  public Calibration {
    bins = List.copyOf(bins);
  }

  /**
   * Bins with the given inner edges over {@code [0, 1]}: edges {@code {0.5, 0.7, 0.9}} make
   * {@code [0, .5) [.5, .7) [.7, .9) [.9, 1]}.
   */
  public static Calibration of(double[] confidence, boolean[] right, double... edges) {
    double[] e = new double[edges.length + 2];
    e[0] = 0;
    System.arraycopy(edges, 0, e, 1, edges.length);
    e[e.length - 1] = 1;
    List<Bin> out = new ArrayList<>();
    for (int b = 0; b + 1 < e.length; b++) {
      long n = 0;
      long ok = 0;
      double sum = 0;
      boolean last = b + 2 == e.length;
      for (int i = 0; i < confidence.length; i++) {
        double c = confidence[i];
        if (c >= e[b] && (c < e[b + 1] || last && c <= e[b + 1])) {
          n++;
          ok += right[i] ? 1 : 0;
          sum += c;
        }
      }
      out.add(new Bin(e[b], e[b + 1], n, ok, n == 0 ? Double.NaN : sum / n));
    }
    return new Calibration(out);
  }

  /**
   * Whether agreement never falls from one non-empty bin with at least {@code minCount} items to the
   * next such bin.
   */
  public boolean rises(int minCount) {
    double previous = -1;
    for (Bin b : bins) {
      if (b.count() >= minCount) {
        if (b.agreement() < previous) {
          return false;
        }
        previous = b.agreement();
      }
    }
    return true;
  }
}
