package io.headscope.analysis.compare;

import io.headscope.analysis.distance.JensenShannon;

/**
 * How alike two attention maps of one head on one input are (METHODS.md, "Base vs fine-tuned"): the
 * cosine similarity of the flattened maps (Kovaleva et al. 2019, Section 5) and the mean over query
 * rows of the Jensen-Shannon divergence between the two rows (natural log, so in [0, ln 2]; rows are
 * not smoothed: both are softmax outputs over the same keys).
 */
public final class MapComparison {
  private MapComparison() {}

  /** {@code <a, b> / (|a| |b|)} over all n x n cells; 0 when either map is all zeros. */
  public static double cosine(float[][] a, float[][] b) {
    checkSameSize(a, b);
    double dot = 0;
    double aa = 0;
    double bb = 0;
    for (int i = 0; i < a.length; i++) {
      float[] x = a[i];
      float[] y = b[i];
      for (int j = 0; j < x.length; j++) {
        dot += (double) x[j] * y[j];
        aa += (double) x[j] * x[j];
        bb += (double) y[j] * y[j];
      }
    }
    return aa == 0 || bb == 0 ? 0 : dot / Math.sqrt(aa * bb);
  }

  /** The mean over query rows of JS(a_i, b_i), in nats. */
  public static double jsDivergence(float[][] a, float[][] b) {
    checkSameSize(a, b);
    return JensenShannon.meanOverRows(a, b, 0);
  }

  private static void checkSameSize(float[][] a, float[][] b) {
    if (a.length != b.length || a.length == 0 || a[0].length != b[0].length) {
      throw new IllegalArgumentException("maps of " + a.length + " and " + b.length + " rows");
    }
  }
}
