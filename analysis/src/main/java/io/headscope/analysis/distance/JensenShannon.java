package io.headscope.analysis.distance;

/**
 * The Jensen-Shannon divergence between two attention distributions (Clark et al. 2019, Section 6;
 * METHODS.md, "Head distances"): {@code JS(P,Q) = 1/2 KL(P||M) + 1/2 KL(Q||M)}, {@code M = (P+Q)/2},
 * natural logarithm (so {@code 0 <= JS <= ln 2}), with {@code 0 log 0 = 0}.
 *
 * <p>As in Clark's {@code head_distances.py}, every row is first smoothed to
 * {@code (1 - s) A + s / n} with {@code s = 0.001}, so no attention weight is exactly zero.
 */
public final class JensenShannon {
  /** Clark et al.'s smoothing of each row before the divergence ({@code 0.999 A + 0.001 / n}). */
  public static final double CLARK_SMOOTHING = 0.001;

  private JensenShannon() {}

  /** JS(P,Q) of two distributions over the same keys, straight from the definition (natural log). */
  public static double divergence(double[] p, double[] q) {
    if (p.length != q.length) {
      throw new IllegalArgumentException("distributions over " + p.length + " and " + q.length + " keys");
    }
    double js = 0;
    for (int j = 0; j < p.length; j++) {
      double m = 0.5 * (p[j] + q[j]);
      if (p[j] > 0) {
        js += 0.5 * p[j] * Math.log(p[j] / m);
      }
      if (q[j] > 0) {
        js += 0.5 * q[j] * Math.log(q[j] / m);
      }
    }
    return js;
  }

  /**
   * The mean over query rows of JS between the rows of two maps of one input ({@code [query][key]},
   * n x n), each row smoothed first: the quantity the head distances average over inputs. This is the
   * plain definition for one pair; {@link PairwiseDivergence} computes all pairs at once.
   *
   * @param smoothing {@code s} in {@code (1 - s) A + s / n}: {@link #CLARK_SMOOTHING}, or 0 for none
   */
  public static double meanOverRows(float[][] a, float[][] b, double smoothing) {
    int n = a.length;
    if (b.length != n || n == 0) {
      throw new IllegalArgumentException("maps of " + n + " and " + b.length + " rows");
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += divergence(smooth(a[i], smoothing), smooth(b[i], smoothing));
    }
    return sum / n;
  }

  /** {@code (1 - s) row + s / n}, where n is the row's length (the number of keys). */
  static double[] smooth(float[] row, double s) {
    double[] out = new double[row.length];
    for (int j = 0; j < row.length; j++) {
      out[j] = (1 - s) * row[j] + s / row.length;
    }
    return out;
  }
}
