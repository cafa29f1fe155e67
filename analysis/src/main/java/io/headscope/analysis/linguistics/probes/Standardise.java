package io.headscope.analysis.linguistics.probes;

/** Feature scales for the probes: standard deviations from running sums. */
final class Standardise {
  /** Below this a feature counts as constant and keeps scale 1 (it cannot help; dividing would blow up). */
  static final double CONSTANT = 1e-9;

  private Standardise() {}

  /** Population standard deviations from sums and sums of squares over {@code count} items. */
  static double[] deviations(double[] sum, double[] sq, long count) {
    double[] sd = new double[sum.length];
    for (int f = 0; f < sum.length; f++) {
      double mean = sum[f] / count;
      double var = Math.max(0, sq[f] / count - mean * mean);
      sd[f] = Math.sqrt(var) < CONSTANT ? 1 : Math.sqrt(var);
    }
    return sd;
  }

  /**
   * An upper-triangular sum divided by {@code count}, mirrored, with {@code l2} added to the first
   * {@code penalised} diagonal entries.
   */
  static double[][] symmetricMean(double[][] upper, long count, double l2, int penalised) {
    int dim = upper.length;
    for (int f = 0; f < dim; f++) {
      for (int g = f; g < dim; g++) {
        upper[f][g] /= count;
        upper[g][f] = upper[f][g];
      }
      if (f < penalised) {
        upper[f][f] += l2;
      }
    }
    return upper;
  }

  static double[] means(double[] sum, long count) {
    double[] mean = new double[sum.length];
    for (int f = 0; f < sum.length; f++) {
      mean[f] = sum[f] / count;
    }
    return mean;
  }
}
