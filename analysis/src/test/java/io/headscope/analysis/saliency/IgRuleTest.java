package io.headscope.analysis.saliency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * The quadrature rules of integrated gradients against values worked by hand and against what each rule
 * must integrate exactly.
 */
class IgRuleTest {
  @Test
  void twoAndThreeGaussLegendreNodesAreTheTextbookOnes() {
    double[][] two = IgRule.GAUSS_LEGENDRE.nodesAndWeights(2);
    // on [-1, 1]: +-1/sqrt(3), weights 1; on [0, 1]: (1 -+ 1/sqrt(3))/2, weights 1/2
    assertThat(two[0]).containsExactly(new double[] {(1 - 1 / Math.sqrt(3)) / 2, (1 + 1 / Math.sqrt(3)) / 2}, within(1e-14));
    assertThat(two[1]).containsExactly(new double[] {0.5, 0.5}, within(1e-14));
    double[][] three = IgRule.GAUSS_LEGENDRE.nodesAndWeights(3);
    // on [-1, 1]: 0, +-sqrt(3/5), weights 8/9, 5/9
    double r = Math.sqrt(0.6);
    assertThat(three[0]).containsExactly(new double[] {(1 - r) / 2, 0.5, (1 + r) / 2}, within(1e-14));
    assertThat(three[1]).containsExactly(new double[] {5.0 / 18, 4.0 / 9, 5.0 / 18}, within(1e-14));
  }

  @Test
  void fiftyNodesIntegrateEveryPolynomialUpToDegreeNinetyNineExactly() {
    double[][] nw = IgRule.GAUSS_LEGENDRE.nodesAndWeights(50);
    for (int degree : new int[] {0, 1, 7, 40, 99}) {
      double s = 0;
      for (int k = 0; k < 50; k++) {
        s += nw[1][k] * Math.pow(nw[0][k], degree);
      }
      assertThat(s).as("int_0^1 a^%d da", degree).isCloseTo(1.0 / (degree + 1), within(1e-13));
    }
    for (int k = 1; k < 50; k++) {
      assertThat(nw[0][k]).isGreaterThan(nw[0][k - 1]);
    }
  }

  @Test
  void theMidpointRuleIsTheRiemannSumOfSundararajanEtAl() {
    double[][] nw = IgRule.MIDPOINT.nodesAndWeights(4);
    assertThat(nw[0]).containsExactly(0.125, 0.375, 0.625, 0.875);
    assertThat(nw[1]).containsExactly(0.25, 0.25, 0.25, 0.25);
  }

  @Test
  void rulesParseByTheirCliNames() {
    assertThat(IgRule.parse("gauss-legendre")).isEqualTo(IgRule.GAUSS_LEGENDRE);
    assertThat(IgRule.parse(" Midpoint ")).isEqualTo(IgRule.MIDPOINT);
    assertThat(IgRule.parse("trapezoid")).isNull();
  }
}
