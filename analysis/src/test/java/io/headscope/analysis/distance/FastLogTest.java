package io.headscope.analysis.distance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The inner loop's logarithm agrees with Math.log wherever the distances can take it. */
class FastLogTest {
  @Test
  void agreesWithMathLogFromTinyToOne() {
    Random r = new Random(14);
    double worst = 0;
    for (int i = 0; i < 2_000_000; i++) {
      double x = Math.exp(-700 * r.nextDouble()); // 1e-304 .. 1, every exponent
      worst = Math.max(worst, relativeError(x));
    }
    assertThat(worst).isLessThan(1e-15);
  }

  @Test
  void agreesAtTheEdgesOfTheTableAndThePowersOfTwo() {
    for (int e = -60; e <= 2; e++) {
      for (int k = 0; k <= 256; k++) {
        double x = Math.scalb(1.0 + k / 256.0, e);
        for (double y : new double[] {Math.nextDown(x), x, Math.nextUp(x)}) {
          assertThat(relativeError(y)).as("log(%s)", y).isLessThan(1e-15);
        }
      }
    }
  }

  /** The difference from Math.log relative to the logarithm's size (absolute near x = 1, where log is 0). */
  private static double relativeError(double x) {
    return Math.abs(FastLog.log(x) - Math.log(x)) / Math.max(1, Math.abs(Math.log(x)));
  }

  @Test
  void zeroTimesItsLogIsZeroAndOddValuesFallBackToMathLog() {
    assertThat(FastLog.xLogX(0)).isEqualTo(0.0);
    assertThat(FastLog.log(0)).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(FastLog.log(Double.MIN_VALUE)).isEqualTo(Math.log(Double.MIN_VALUE));
    assertThat(FastLog.log(-1)).isNaN();
    assertThat(FastLog.xLogX(0.5)).isCloseTo(0.5 * Math.log(0.5), org.assertj.core.api.Assertions.within(1e-16));
  }
}
