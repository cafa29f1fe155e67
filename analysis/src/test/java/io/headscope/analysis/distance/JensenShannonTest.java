package io.headscope.analysis.distance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The divergence on distributions and maps small enough to work out by hand (natural logs). */
class JensenShannonTest {
  private static final double LN2 = 0.6931471805599453;

  @Test
  void disjointDistributionsAreLn2Apart() {
    // P = (1, 0), Q = (0, 1): M = (1/2, 1/2); KL(P||M) = 1 ln(1 / (1/2)) = ln 2, KL(Q||M) = ln 2
    // JS = 1/2 ln 2 + 1/2 ln 2 = ln 2 = 0.693147..., the largest value in nats
    assertThat(JensenShannon.divergence(new double[] {1, 0}, new double[] {0, 1})).isCloseTo(LN2, within(1e-15));
  }

  @Test
  void certainAgainstEvenIsThreeQuartersOfLnFourThirds() {
    // P = (1, 0), Q = (1/2, 1/2): M = (3/4, 1/4)
    // KL(P||M) = ln(1 / (3/4)) = ln(4/3)
    // KL(Q||M) = 1/2 ln((1/2)/(3/4)) + 1/2 ln((1/2)/(1/4)) = 1/2 ln(2/3) + 1/2 ln 2 = 1/2 ln(4/3)
    // JS = 1/2 (ln(4/3) + 1/2 ln(4/3)) = 3/4 ln(4/3) = 0.75 * 0.2876820724517809 = 0.2157615543388357
    assertThat(JensenShannon.divergence(new double[] {1, 0}, new double[] {0.5, 0.5}))
        .isCloseTo(0.2157615543388357, within(1e-15));
    // symmetric
    assertThat(JensenShannon.divergence(new double[] {0.5, 0.5}, new double[] {1, 0}))
        .isCloseTo(0.2157615543388357, within(1e-15));
  }

  @Test
  void aDistributionIsZeroFromItself() {
    double[] p = {0.2, 0.3, 0.5};
    assertThat(JensenShannon.divergence(p, p)).isEqualTo(0.0);
  }

  @Test
  void twoByTwoMapsAverageTheirRows() {
    // rows: (1,0) vs (1,0) -> 0; (0,1) vs (1/2,1/2) -> 3/4 ln(4/3) as above (keys swapped)
    // mean over the 2 rows: 3/8 ln(4/3) = 0.10788077716941782
    float[][] a = {{1, 0}, {0, 1}};
    float[][] c = {{1, 0}, {0.5f, 0.5f}};
    assertThat(JensenShannon.meanOverRows(a, c, 0)).isCloseTo(0.10788077716941782, within(1e-15));
  }

  @Test
  void identityAgainstUniformThreeByThree() {
    // each row: P = (1,0,0) (a permutation of it), Q = (1/3,1/3,1/3): M = (2/3, 1/6, 1/6)
    // KL(P||M) = ln(1 / (2/3)) = ln(3/2) = 0.4054651081081644
    // KL(Q||M) = 1/3 ln((1/3)/(2/3)) + 2/3 ln((1/3)/(1/6)) = -1/3 ln 2 + 2/3 ln 2 = 1/3 ln 2 = 0.2310490601866484
    // JS = 1/2 (0.4054651081081644 + 0.2310490601866484) = 0.3182570841474064, every row alike
    float[][] identity = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    float third = 1f / 3;
    float[][] uniform = {{third, third, third}, {third, third, third}, {third, third, third}};
    // float 1/3 is off by 1e-8, which moves JS by about that much
    assertThat(JensenShannon.meanOverRows(identity, uniform, 0)).isCloseTo(0.3182570841474064, within(1e-7));
  }

  @Test
  void clarksSmoothingMovesEveryWeightTowardsEven() {
    // s = 0.001, n = 2: (1, 0) becomes (0.999 + 0.0005, 0.0005) = (0.9995, 0.0005); (0, 1) becomes (0.0005, 0.9995)
    // M = (1/2, 1/2); KL(P||M) = 0.9995 ln(0.9995 / 0.5) + 0.0005 ln(0.0005 / 0.5)
    //   = 0.9995 ln(1.999) + 0.0005 ln(0.001) = 0.6923007319905040 - 0.0034538776394911
    //   = 0.6888468543510129 = KL(Q||M) by symmetry, so JS = 0.6888468543510129 (below ln 2)
    float[][] a = {{1, 0}, {1, 0}};
    float[][] b = {{0, 1}, {0, 1}};
    assertThat(JensenShannon.meanOverRows(a, b, JensenShannon.CLARK_SMOOTHING))
        .isCloseTo(0.6888468543510129, within(1e-12));
  }
}
