package io.headscope.analysis.distance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;

/** All pairs at once agree with the definition pair by pair, on hand-made and on random maps. */
class PairwiseDivergenceTest {
  private static final double LN2 = 0.6931471805599453;

  @Test
  void handMadeHeadsGiveTheHandWorkedDivergences() {
    // layer 1: head 1 attends to itself, head 2 to the other token; layer 2: head 1 = layer 1 head 1,
    // head 2 keeps row 1 and spreads row 2 evenly
    float[][] self = {{1, 0}, {0, 1}};
    float[][] other = {{0, 1}, {1, 0}};
    float[][] half = {{1, 0}, {0.5f, 0.5f}};
    float[][][][] attention = {{self, other}, {self.clone(), half}};
    double[][] js = PairwiseDivergence.of(attention, 0);
    // self vs other: every row disjoint, ln 2 per row, mean ln 2
    assertThat(js[0][1]).isCloseTo(LN2, within(1e-14));
    // self vs self: 0
    assertThat(js[0][2]).isCloseTo(0, within(1e-14));
    // self vs half: rows 0 and 3/4 ln(4/3) (JensenShannonTest), mean 3/8 ln(4/3) = 0.10788077716941782
    assertThat(js[0][3]).isCloseTo(0.10788077716941782, within(1e-14));
    // other vs half: row 1 (0,1) vs (1,0) = ln 2; row 2 (1,0) vs (1/2,1/2) = 3/4 ln(4/3);
    // mean (0.6931471805599453 + 0.2157615543388357) / 2 = 0.4544543674493905
    assertThat(js[1][3]).isCloseTo(0.4544543674493905, within(1e-14));
    assertSymmetricWithZeroDiagonal(js);
  }

  @Test
  void randomHeadsAgreeWithTheDefinitionPairByPairWithClarksSmoothing() {
    Random r = new Random(7);
    int layers = 3;
    int heads = 5;
    int n = 9;
    float[][][][] attention = new float[layers][heads][n][n];
    for (float[][][] layer : attention) {
      for (float[][] map : layer) {
        for (float[] row : map) {
          double sum = 0;
          for (int j = 0; j < n; j++) {
            // peaked rows with exact zeros, as a softmax gives after underflow
            row[j] = r.nextDouble() < 0.3 ? 0 : (float) Math.exp(4 * r.nextGaussian());
            sum += row[j];
          }
          if (sum == 0) {
            row[r.nextInt(n)] = 1;
            sum = 1;
          }
          for (int j = 0; j < n; j++) {
            row[j] = (float) (row[j] / sum);
          }
        }
      }
    }
    double[][] js = PairwiseDivergence.of(attention, JensenShannon.CLARK_SMOOTHING);
    int k = layers * heads;
    for (int a = 0; a < k; a++) {
      for (int b = 0; b < k; b++) {
        double expected = JensenShannon.meanOverRows(attention[a / heads][a % heads], attention[b / heads][b % heads],
            JensenShannon.CLARK_SMOOTHING);
        assertThat(js[a][b]).as("heads %d and %d", a, b).isCloseTo(expected, within(1e-12));
      }
    }
    assertSymmetricWithZeroDiagonal(js);
    assertThat(js[0][1]).isGreaterThan(0.01); // not a matrix of zeros
  }

  @Test
  void anOddNumberOfHeadsCoversEveryPair() {
    // 3 heads: one task pairs row 0 with row 1; nothing may be left at its initial 0
    float[][] self = {{1, 0}, {0, 1}};
    float[][] other = {{0, 1}, {1, 0}};
    float[][] even = {{0.5f, 0.5f}, {0.5f, 0.5f}};
    double[][] js = PairwiseDivergence.of(new float[][][][] {{self, other, even}}, 0);
    // self vs even and other vs even: every row (1,0) vs (1/2,1/2) = 3/4 ln(4/3) = 0.2157615543388357
    assertThat(js[0][2]).isCloseTo(0.2157615543388357, within(1e-14));
    assertThat(js[1][2]).isCloseTo(0.2157615543388357, within(1e-14));
    assertThat(js[0][1]).isCloseTo(LN2, within(1e-14));
    assertSymmetricWithZeroDiagonal(js);
  }

  @Test
  void cancelStopsTheCall() {
    float[][] m = {{1}};
    float[][][][] attention = {{m, m, m, m}};
    assertThatThrownBy(() -> PairwiseDivergence.of(attention, 0, () -> true, f -> {}))
        .isInstanceOf(CancellationException.class);
  }

  static void assertSymmetricWithZeroDiagonal(double[][] js) {
    for (int a = 0; a < js.length; a++) {
      assertThat(js[a][a]).isEqualTo(0.0);
      for (int b = 0; b < js.length; b++) {
        assertThat(js[a][b]).isEqualTo(js[b][a]).isBetween(0.0, LN2 + 1e-12);
      }
    }
  }
}
