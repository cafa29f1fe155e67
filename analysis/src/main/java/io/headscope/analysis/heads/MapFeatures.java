package io.headscope.analysis.heads;

import java.util.List;

/**
 * What the learned classifier reads off one map: the interpretable scores, the head's statistics, and
 * a few features of where each row's largest weight falls (the eye reads a map by its darkest cells).
 * Definitions in METHODS.md ("Kovaleva pattern categories"); every value is computed in the same pass
 * as the scores ({@link HeadClassifier}).
 *
 * @param values in the order of {@link #NAMES}
 */
public record MapFeatures(double[] values) {

  /** The feature names, as the shipped model's JSON lists them. */
  public static final List<String> NAMES = List.of(
      "vertical", "vertical_focus", "diagonal", "block",
      "entropy_ratio", "previous", "next", "self", "cls", "sep", "punct",
      "argmax_in_top_columns", "argmax_in_band", "top_column_mean", "second_column_mean",
      "pair", "log_length");

  public MapFeatures {
    if (values.length != NAMES.size()) {
      throw new IllegalArgumentException(values.length + " features for " + NAMES.size() + " names");
    }
  }

  /** By value (a record compares arrays by identity), so equal maps give equal scores. */
  @Override
  public boolean equals(Object o) {
    return o instanceof MapFeatures f && java.util.Arrays.equals(values, f.values);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "MapFeatures" + java.util.Arrays.toString(values);
  }

  /**
   * @param rowArgmax each row's most attended key (the first on a tie)
   * @param top which keys are the map's top columns
   * @param topMean the top column's mean weight
   * @param secondMean the second most attended column's mean weight (0 for one token)
   */
  static MapFeatures of(double vertical, double focus, double diagonal, double block, HeadStats stats,
      int[] rowArgmax, boolean[] top, boolean pair, double topMean, double secondMean) {
    int n = rowArgmax.length;
    int inTop = 0;
    int inBand = 0;
    for (int i = 0; i < n; i++) {
      int j = rowArgmax[i];
      if (top[j]) {
        inTop++;
      } else if (Math.abs(j - i) <= 1) {
        inBand++;
      }
    }
    double logN = Math.log(n);
    return new MapFeatures(new double[] {
        vertical, focus, diagonal, block,
        n > 1 ? stats.entropy() / logN : 0, // entropy over its maximum, so lengths compare
        stats.previous(), stats.next(), stats.self(), stats.cls(), stats.sep(), stats.punct(),
        inTop / (double) n, inBand / (double) n, topMean, secondMean,
        pair ? 1 : 0, logN});
  }
}
