package io.headscope.app.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The head map's layer numbers: where dots crowd only the top ones are numbered, and numbers never touch. */
class CrowdedLabelsTest {
  @Test
  void aDotUnderALaterOneLosesItsNumberByHand() {
    // 0 and 1 are 5 apart (1 is drawn over 0); 2 is far from both; 3 is 14 from 2, just enough room
    double[] xs = {0, 5, 100, 114};
    double[] ys = {0, 0, 100, 100};
    assertThat(CrowdedLabels.labelled(xs, ys, 14)).containsExactly(false, true, true, true);
  }

  @Test
  void onAHundredAndFortyFourDotsNoTwoNumbersTouchAndEveryUnnumberedDotIsCovered() {
    Random r = new Random(3);
    int n = 144;
    double[] xs = new double[n];
    double[] ys = new double[n];
    for (int i = 0; i < n; i++) {
      // a dense cluster and a sparse rest, as a head map has
      boolean cluster = i % 3 == 0;
      xs[i] = cluster ? 40 + 30 * r.nextDouble() : 400 * r.nextDouble();
      ys[i] = cluster ? 60 + 30 * r.nextDouble() : 400 * r.nextDouble();
    }
    boolean[] on = CrowdedLabels.labelled(xs, ys, 14);
    int numbered = 0;
    for (int i = 0; i < n; i++) {
      if (on[i]) {
        numbered++;
        for (int j = 0; j < n; j++) {
          // a two-digit number is at most 11 px wide and 9 high around its dot's centre
          boolean touch = j != i && on[j] && Math.abs(xs[i] - xs[j]) < 11 && Math.abs(ys[i] - ys[j]) < 9;
          assertThat(touch).as("numbers of %d and %d", i, j).isFalse();
        }
      } else {
        boolean coveredLater = false;
        for (int j = i + 1; j < n; j++) {
          coveredLater |= Math.hypot(xs[i] - xs[j], ys[i] - ys[j]) < 14;
        }
        assertThat(coveredLater).as("dot %d", i).isTrue();
      }
    }
    assertThat(numbered).as("most dots of the sparse part keep their number").isGreaterThan(n / 2);
    assertThat(on[n - 1]).as("the last dot is on top of all").isTrue();
  }
}
