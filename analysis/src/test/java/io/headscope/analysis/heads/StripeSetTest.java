package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * The stripe set and the share of rows on it, on maps small enough to check by hand (the numbers in the
 * comments are worked out on paper, not read from the code).
 */
class StripeSetTest {
  @Test
  void theSetTakesEveryColumnWithHalfTheTopOnesWeightUpToFour() {
    // order by weight: 0 (0.40), 2 (0.25), 4 (0.21), 3 (0.19), 5, 1; half the top is 0.20, so 3 stays out
    assertThat(MapFeatures.stripeSet(new double[] {0.40, 0.05, 0.25, 0.19, 0.21, 0.10}))
        .containsExactly(true, false, true, false, true, false);
    // five equal columns: four at most, ties to the first keys
    assertThat(MapFeatures.stripeSet(new double[] {0.2, 0.2, 0.2, 0.2, 0.2}))
        .containsExactly(true, true, true, true, false);
    // one dominant column alone
    assertThat(MapFeatures.stripeSet(new double[] {0.9, 0.05, 0.05})).containsExactly(true, false, false);
  }

  /**
   * Column means 2.3/6 (key 0), 1.3/6 (key 5), 0.8/6, 0.7/6, 0.5/6, 0.4/6: half the top is 1.15/6, so the set
   * is keys 0 and 5. Off the band (|i - j| > 1) rows 2 (0.4 + 0.3) and 3 (0.3 + 0.3) hold at least half their
   * weight there; rows 0 and 1 reach key 0 on the band, row 4 key 5, row 5 key 5, so 2 rows of 6. With key 0
   * alone as the stripes no row holds half, so the one-column share is 0.
   */
  @Test
  void rowsOnTheStripeSetCountRowsWithHalfTheirWeightOnItOffTheBand() {
    float[][] map = {
        {0.6f, 0.1f, 0.1f, 0.1f, 0.0f, 0.1f},
        {0.5f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f},
        {0.4f, 0.1f, 0.1f, 0.1f, 0.0f, 0.3f},
        {0.3f, 0.1f, 0.1f, 0.1f, 0.1f, 0.3f},
        {0.2f, 0.2f, 0.2f, 0.1f, 0.1f, 0.2f},
        {0.3f, 0.1f, 0.2f, 0.0f, 0.1f, 0.3f}};
    int n = map.length;
    double[] colMean = new double[n];
    int[] argmax = new int[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        colMean[j] += map[i][j] / (double) n;
        argmax[i] = map[i][j] > map[i][argmax[i]] ? j : argmax[i];
      }
    }
    boolean[] top = {true, false, false, false, false, false};
    HeadStats stats = new HeadStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    MapFeatures f = MapFeatures.of(0, 0, 0, 0, stats, argmax, top, false, colMean[0], colMean[5], map,
        new boolean[n], new long[n], colMean);
    assertThat(f.values()[MapFeatures.NAMES.indexOf("rows_on_stripe_set")]).isCloseTo(2 / 6.0, within(1e-12));
    assertThat(f.values()[MapFeatures.NAMES.indexOf("stripe_set_size")]).isEqualTo(2);
    assertThat(f.values()[MapFeatures.NAMES.indexOf("rows_on_stripes")]).isEqualTo(0);
  }
}
