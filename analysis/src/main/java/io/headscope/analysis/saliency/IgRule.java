package io.headscope.analysis.saliency;

import java.util.Locale;

/**
 * How integrated gradients' path integral {@code int_0^1 grad f(b + a (x - b)) da} is approximated from
 * {@code m} gradients. Gauss-Legendre (Captum's default) is exact for polynomials of degree {@code 2m - 1}
 * and puts its nodes closer together near both ends of the path, where a post-LayerNorm model's output
 * changes fastest; the midpoint rule is Sundararajan et al.'s Riemann sum.
 */
public enum IgRule {
  /** Nodes the roots of the Legendre polynomial mapped to [0, 1], weights summing to 1. */
  GAUSS_LEGENDRE("gauss-legendre"),
  /** Nodes {@code (k - 1/2)/m}, equal weights {@code 1/m}. */
  MIDPOINT("midpoint");

  public static final IgRule DEFAULT = GAUSS_LEGENDRE;

  public final String label;

  IgRule(String label) {
    this.label = label;
  }

  /** Parses {@code gauss-legendre} or {@code midpoint}; null if neither. */
  public static IgRule parse(String s) {
    String t = s == null ? "" : s.trim().toLowerCase(Locale.ROOT);
    for (IgRule r : values()) {
      if (r.label.equals(t)) {
        return r;
      }
    }
    return null;
  }

  /** The {@code m} nodes on [0, 1] and their weights: {@code {nodes, weights}}, nodes ascending. */
  public double[][] nodesAndWeights(int m) {
    if (m < 1) {
      throw new IllegalArgumentException("at least one node, got " + m);
    }
    double[] t = new double[m];
    double[] w = new double[m];
    if (this == MIDPOINT) {
      for (int k = 0; k < m; k++) {
        t[k] = (k + 0.5) / m;
        w[k] = 1.0 / m;
      }
      return new double[][] {t, w};
    }
    // Newton's method on P_m from Chebyshev-like starting points (Numerical Recipes' gauleg), on [-1, 1],
    // then mapped to [0, 1]: node (1 + x)/2, weight w/2
    for (int i = 0; i < (m + 1) / 2; i++) {
      double z = Math.cos(Math.PI * (i + 0.75) / (m + 0.5));
      double dp;
      for (int iter = 0; ; iter++) {
        double p1 = 1;
        double p2 = 0;
        for (int j = 1; j <= m; j++) {
          double p3 = p2;
          p2 = p1;
          p1 = ((2.0 * j - 1) * z * p2 - (j - 1.0) * p3) / j;
        }
        dp = m * (z * p1 - p2) / (z * z - 1);
        double z1 = z;
        z = z1 - p1 / dp;
        if (Math.abs(z - z1) <= 1e-15 || iter > 100) {
          break;
        }
      }
      double weight = 2 / ((1 - z * z) * dp * dp);
      t[i] = (1 - z) / 2;
      t[m - 1 - i] = (1 + z) / 2;
      w[i] = weight / 2;
      w[m - 1 - i] = weight / 2;
    }
    return new double[][] {t, w};
  }
}
