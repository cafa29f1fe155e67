package io.headscope.analysis.linguistics.probes;

import java.util.function.Function;

/**
 * The probes' scores are affine in the weights, so along one line of the optimiser's line search they
 * need computing in full only twice: at the line's start (where the gradient was taken) and at its first
 * trial point; every further point of the same line is interpolated, {@code s(a + t (b - a)) = s(a) +
 * t (s(b) - s(a))}, at a cost per item instead of per item and feature. A point off the line is
 * computed in full.
 */
final class LineMemo {
  /** How far (relative to the point's size) a point may lie from the line and still count as on it. */
  static final double ON_LINE = 1e-12;

  private double[] a;
  private double[] scoresA;
  private double[] b;
  private double[] scoresB;

  /**
   * The scores at {@code x}.
   *
   * @param start true where the optimiser takes a gradient: a new line starts there
   * @param full computes scores in full
   */
  double[] scores(double[] x, boolean start, Function<double[], double[]> full) {
    if (start || a == null) {
      a = x.clone();
      scoresA = full.apply(x);
      b = null;
      return scoresA;
    }
    if (java.util.Arrays.equals(x, a)) {
      return scoresA;
    }
    if (b == null) {
      b = x.clone();
      scoresB = full.apply(x);
      return scoresB;
    }
    double t = along(x);
    if (Double.isNaN(t)) {
      return full.apply(x);
    }
    double[] s = new double[scoresA.length];
    for (int i = 0; i < s.length; i++) {
      s[i] = scoresA[i] + t * (scoresB[i] - scoresA[i]);
    }
    return s;
  }

  /** The {@code t} with {@code x = a + t (b - a)}, or NaN when {@code x} is off that line. */
  private double along(double[] x) {
    double dd = 0;
    double xd = 0;
    double size = 1;
    for (int i = 0; i < x.length; i++) {
      double d = b[i] - a[i];
      dd += d * d;
      xd += (x[i] - a[i]) * d;
      size = Math.max(size, Math.abs(x[i]));
    }
    if (dd == 0) {
      return Double.NaN;
    }
    double t = xd / dd;
    for (int i = 0; i < x.length; i++) {
      if (Math.abs(a[i] + t * (b[i] - a[i]) - x[i]) > ON_LINE * size) {
        return Double.NaN;
      }
    }
    return t;
  }
}
