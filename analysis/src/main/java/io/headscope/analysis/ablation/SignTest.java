package io.headscope.analysis.ablation;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;

/**
 * The one-sided exact sign test of the task sweep (METHODS.md, "Does removing a head help?"): among the
 * heads whose removal changes the score, {@code improved} raised it and {@code worsened} lowered it.
 * Under the null hypothesis a change is as likely to be an improvement as a loss (and independent from
 * head to head), so {@code improved ~ Binomial(n, 1/2)} with {@code n = improved + worsened}; the
 * p-value is {@code P(X >= improved) = sum_{j >= improved} C(n, j) / 2^n}, exact. A small p-value says
 * removals help more often than chance; "removing a head never helps" is the extreme of the null.
 *
 * @param pValue 1 when no head changed the score
 */
public record SignTest(int improved, int worsened, double pValue) {

  public static SignTest of(int improved, int worsened) {
    if (improved < 0 || worsened < 0) {
      throw new IllegalArgumentException("negative counts");
    }
    int n = improved + worsened;
    BigInteger tail = BigInteger.ZERO;
    BigInteger c = BigInteger.ONE; // C(n, 0)
    for (int j = 0; j <= n; j++) {
      if (j >= improved) {
        tail = tail.add(c);
      }
      c = c.multiply(BigInteger.valueOf(n - j)).divide(BigInteger.valueOf(j + 1));
    }
    double p = new BigDecimal(tail).divide(new BigDecimal(BigInteger.TWO.pow(n)), MathContext.DECIMAL64).doubleValue();
    return new SignTest(improved, worsened, p);
  }

  /** The test of one score's deltas: positive ones improved, negative ones worsened, zeros left out. */
  public static SignTest ofDeltas(double[][] delta) {
    int up = 0;
    int down = 0;
    for (double[] row : delta) {
      for (double d : row) {
        up += d > 0 ? 1 : 0;
        down += d < 0 ? 1 : 0;
      }
    }
    return of(up, down);
  }
}
