package io.headscope.analysis.ablation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RankCorrelationTest {
  @Test
  void tiesShareTheirMeanRank() {
    assertThat(RankCorrelation.ranks(new double[] {10, 20, 20, 5})).containsExactly(2, 3.5, 3.5, 1);
  }

  @Test
  void monotoneIsOneReversedIsMinusOneAndAHandWorkedCase() {
    assertThat(RankCorrelation.spearman(new double[] {1, 2, 3, 4}, new double[] {1, 8, 27, 64})).isEqualTo(1.0);
    assertThat(RankCorrelation.spearman(new double[] {1, 2, 3, 4}, new double[] {9, 7, 5, 1})).isEqualTo(-1.0);
    // ranks 1..5 against 2,1,4,3,5: sum d^2 = 4, rho = 1 - 6*4/(5*24) = 0.8
    assertThat(RankCorrelation.spearman(new double[] {1, 2, 3, 4, 5}, new double[] {20, 10, 40, 30, 50}))
        .isCloseTo(0.8, within(1e-12));
    assertThat(RankCorrelation.spearman(new double[] {1, 2}, new double[] {3, 3})).isNaN();
  }
}
