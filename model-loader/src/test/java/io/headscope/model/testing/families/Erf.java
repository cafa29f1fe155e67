package io.headscope.model.testing.families;

/**
 * The error function in double precision, for the reference's exact GELU {@code x Phi(x)}.
 *
 * <p>Uses the everywhere-convergent series {@code erf(x) = 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) /
 * (1*3*...*(2n+1))} (Abramowitz-Stegun 7.1.6): every term is positive, so nothing cancels and the sum is
 * good to a few ulps, unlike the alternating Taylor series. Past |x| = 6, erf is +-1 to within
 * {@code erfc(6) = 2e-17}, below a double's resolution near 1.
 */
public final class Erf {
  private static final double TWO_OVER_SQRT_PI = 1.1283791670955126;

  private Erf() {}

  public static double erf(double x) {
    if (Double.isNaN(x)) {
      return x;
    }
    double a = Math.abs(x);
    if (a >= 6) {
      return Math.signum(x);
    }
    double term = a; // n = 0
    double sum = a;
    double x2 = a * a;
    for (int n = 1; n < 500; n++) {
      term *= 2 * x2 / (2 * n + 1);
      sum += term;
      if (term < sum * 1e-17) {
        break;
      }
    }
    double r = TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
    return x < 0 ? -r : r;
  }
}
