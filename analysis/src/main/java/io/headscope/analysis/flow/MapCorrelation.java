package io.headscope.analysis.flow;

import io.headscope.analysis.ablation.RankCorrelation;

/**
 * How well a layer's attention explains its token-to-token Jacobian norms: Spearman's and Pearson's
 * correlation of {@code J^l[j][i]} with the layer's mean attention map {@code mean_h A^(l,h)[j][i]} and
 * with Kobayashi's norm-weighted map {@code ||sum_h A^(l,h)[j][i] f^h(x_i)||}, over the off-diagonal
 * cells {@code j != i} (the diagonal holds the residual path, which attention does not model). All
 * three matrices are [output or query j][input or key i]: a query gathers from its keys, an output
 * token depends on the input tokens, so no transpose.
 *
 * @param layer 1-based
 */
public record MapCorrelation(int layer, double spearmanAttention, double pearsonAttention, double spearmanNorm,
    double pearsonNorm) {

  public static MapCorrelation of(int layer, double[][] jacobian, double[][] attention, double[][] normWeighted) {
    return of(layer, jacobian, attention, normWeighted, false);
  }

  /**
   * {@link #of}; for a causal model ({@code causal}) over the cells below the diagonal only ({@code i < j}):
   * above it the Jacobian and both maps are 0 by construction, and counting those agreeing zeros would
   * inflate every correlation.
   */
  public static MapCorrelation of(int layer, double[][] jacobian, double[][] attention, double[][] normWeighted,
      boolean causal) {
    double[] j = causal ? belowDiagonal(jacobian) : offDiagonal(jacobian);
    double[] a = causal ? belowDiagonal(attention) : offDiagonal(attention);
    double[] n = causal ? belowDiagonal(normWeighted) : offDiagonal(normWeighted);
    return new MapCorrelation(layer, RankCorrelation.spearman(j, a), RankCorrelation.pearson(j, a),
        RankCorrelation.spearman(j, n), RankCorrelation.pearson(j, n));
  }

  /** The cells {@code [j][i]} with {@code i < j}, row by row. */
  static double[] belowDiagonal(double[][] m) {
    int n = m.length;
    double[] out = new double[n * (n - 1) / 2];
    int k = 0;
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < j; i++) {
        out[k++] = m[j][i];
      }
    }
    return out;
  }

  /** The cells {@code [j][i]} with {@code j != i}, row by row. */
  static double[] offDiagonal(double[][] m) {
    int n = m.length;
    double[] out = new double[n * (n - 1)];
    int k = 0;
    for (int j = 0; j < n; j++) {
      if (m[j].length != n) {
        throw new IllegalArgumentException("not square: row " + j + " has " + m[j].length + " of " + n);
      }
      for (int i = 0; i < n; i++) {
        if (i != j) {
          out[k++] = m[j][i];
        }
      }
    }
    return out;
  }
}
