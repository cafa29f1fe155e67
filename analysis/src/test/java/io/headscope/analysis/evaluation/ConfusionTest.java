package io.headscope.analysis.evaluation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConfusionTest {

  /**
   * The textbook two-rater example (Cohen's kappa on Wikipedia): 50 items, both yes 20, A yes B no 5,
   * A no B yes 10, both no 15. p_o = 35/50 = 0.7; A says yes 25 times, B 30 times, so
   * p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5 and kappa = (0.7 - 0.5) / 0.5 = 0.4.
   */
  @Test
  void kappaOfTheTextbookExample() {
    Confusion c = new Confusion(List.of("yes", "no"), new long[][] {{20, 5}, {10, 15}});
    assertThat(c.total()).isEqualTo(50);
    assertThat(c.agreement()).isCloseTo(0.7, within(1e-12));
    assertThat(c.kappa()).isCloseTo(0.4, within(1e-12));
    // precision of "yes" (B's yes that A also said): 20 / 30; recall of A's yes: 20 / 25
    assertThat(c.precision(0)).isCloseTo(20 / 30.0, within(1e-12));
    assertThat(c.recall(0)).isCloseTo(0.8, within(1e-12));
    // with two classes, one class against the rest is the same table
    assertThat(c.kappa(0)).isCloseTo(0.4, within(1e-12));
    // 20 items both said yes, 35 items either did
    assertThat(c.positiveAgreement(0)).isCloseTo(20 / 35.0, within(1e-12));
  }

  /**
   * Three classes counted from label lists: truth {0,0,0,1,1,2}, said {0,0,1,1,2,2}. Agreed 4 of 6.
   * Truth shares 3/6, 2/6, 1/6; said shares 2/6, 2/6, 2/6; p_e = (6 + 4 + 2) / 36 = 1/3; kappa =
   * (2/3 - 1/3) / (2/3) = 0.5. Class 2 against the rest: truth in {5}, said in {4,5}: table
   * [[1,0],[1,4]], p_o = 5/6, p_e = (1/6)(2/6) + (5/6)(4/6) = 22/36, kappa = (30/36 - 22/36)/(14/36) = 4/7.
   */
  @Test
  void threeClassesFromLabels() {
    Confusion c = Confusion.of(List.of("a", "b", "c"), new int[] {0, 0, 0, 1, 1, 2}, new int[] {0, 0, 1, 1, 2, 2});
    assertThat(c.counts()[0]).containsExactly(2, 1, 0);
    assertThat(c.counts()[1]).containsExactly(0, 1, 1);
    assertThat(c.counts()[2]).containsExactly(0, 0, 1);
    assertThat(c.agreement()).isCloseTo(4 / 6.0, within(1e-12));
    assertThat(c.kappa()).isCloseTo(0.5, within(1e-12));
    assertThat(c.kappa(2)).isCloseTo(4 / 7.0, within(1e-12));
    assertThat(c.recall(0)).isCloseTo(2 / 3.0, within(1e-12));
    assertThat(c.precision(2)).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void aClassNobodyUsedHasNoPrecisionOrRecall() {
    Confusion c = Confusion.of(List.of("a", "b"), new int[] {0, 0}, new int[] {0, 0});
    assertThat(c.precision(1)).isNaN();
    assertThat(c.recall(1)).isNaN();
    assertThat(c.kappa()).isEqualTo(1); // perfect agreement on a single class: chance is 1, defined as 1
  }

  /** Bins [0,.5) [.5,.8) [.8,1]: confidences .4 (wrong), .6 (right), .7 (wrong), .9 (right), 1 (right). */
  @Test
  void calibrationBinsCountAndAgree() {
    Calibration cal = Calibration.of(new double[] {0.4, 0.6, 0.7, 0.9, 1.0},
        new boolean[] {false, true, false, true, true}, 0.5, 0.8);
    assertThat(cal.bins()).hasSize(3);
    assertThat(cal.bins().get(0).count()).isEqualTo(1);
    assertThat(cal.bins().get(0).agreement()).isEqualTo(0);
    assertThat(cal.bins().get(1).agreement()).isEqualTo(0.5);
    assertThat(cal.bins().get(1).meanConfidence()).isCloseTo(0.65, within(1e-12));
    assertThat(cal.bins().get(2).count()).isEqualTo(2); // 1.0 falls in the last, closed bin
    assertThat(cal.rises(1)).isTrue();
    Calibration falling = Calibration.of(new double[] {0.6, 0.9}, new boolean[] {true, false}, 0.5, 0.8);
    assertThat(falling.rises(1)).isFalse();
  }
}
