package io.headscope.analysis.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The correlations beside each layer, against values worked out by hand. */
class JacobianCorrelationTest {
  // Diagonals that would change every result if they were counted (J's residual path is large, A's is 0).
  static final double[][] J = {{100, 0.2, 0.5}, {0.5, 100, 0.1}, {0.9, 0.5, 100}};
  static final double[][] A = {{0, 0.3, 0.3}, {0.6, 0, 0.1}, {0.8, 0.2, 0}};

  @Test
  void spearmanGivesTiesTheirMeanRankAndLeavesTheDiagonalOut() {
    // off the diagonal, row by row: J = 0.2 0.5 0.5 0.1 0.9 0.5 -> ranks 2 4 4 1 6 4 (three ties at 3,4,5 -> 4)
    //                               A = 0.3 0.3 0.6 0.1 0.8 0.2 -> ranks 3.5 3.5 5 1 6 2 (two ties at 3,4 -> 3.5)
    // both rank means 3.5; deviations -1.5 .5 .5 -2.5 2.5 .5 and 0 0 1.5 -2.5 2.5 -1.5:
    // sum of products 12.5, sums of squares 15.5 and 17, so rho = 12.5 / sqrt(15.5 * 17)
    MapCorrelation c = MapCorrelation.of(4, J, A, A);
    assertThat(c.layer()).isEqualTo(4);
    assertThat(c.spearmanAttention()).isCloseTo(12.5 / Math.sqrt(15.5 * 17), within(1e-12));
    assertThat(c.spearmanNorm()).isEqualTo(c.spearmanAttention());
  }

  @Test
  void pearsonUsesTheValuesOffTheDiagonal() {
    // means 0.45 and 2.3/6; sum of products 0.305, sums of squares 0.395 and 0.348333...
    MapCorrelation c = MapCorrelation.of(1, J, A, A);
    assertThat(c.pearsonAttention()).isCloseTo(0.305 / Math.sqrt(0.395 * (2.09 / 6)), within(1e-12));
  }

  @Test
  void theMapIsNotTransposed() {
    // A transposed pairs J[j][i] with A[i][j]: a different set of pairs, so a different correlation
    double[][] at = {{0, 0.6, 0.8}, {0.3, 0, 0.2}, {0.3, 0.1, 0}};
    MapCorrelation c = MapCorrelation.of(1, J, A, at);
    assertThat(c.spearmanNorm()).isNotCloseTo(c.spearmanAttention(), within(0.1));
  }

  @Test
  void aConstantSideHasNoCorrelation() {
    double[][] flat = {{1, 0.5, 0.5}, {0.5, 1, 0.5}, {0.5, 0.5, 1}};
    assertThat(MapCorrelation.of(1, J, flat, flat).spearmanAttention()).isNaN();
  }
}
