package io.headscope.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * The summaries of full maps worked by hand, on a cross-attention map (3 target queries over 2 source keys) whose
 * rows outnumber its keys and a 2 x 5 map whose keys are pooled: the mean runs over query rows, the received
 * weight and the pooling over keys. Every expected value is a sum of a few quarters and halves, exact in double.
 */
class HeadSummariesTest {

  @Test
  void aCrossMapWithMoreQueriesThanKeysIsSummarisedOverItsRowsAndKeys() {
    float[][] cross = {{0.25f, 0.75f}, {1f, 0f}, {0.5f, 0.5f}};
    HeadSummaries s = HeadSummaries.of(new float[][][][] {{cross}}, 2);

    assertThat(s.maxWeight()[0][0]).isEqualTo(1f);
    assertThat(s.sink()[0][0]).isCloseTo((float) (1.75 / 3), within(1e-7f));
    double rowEntropy0 = -(0.25 * Math.log(0.25) + 0.75 * Math.log(0.75));
    assertThat(s.entropy()[0][0]).isCloseTo((float) ((rowEntropy0 + 0 + Math.log(2)) / 3), within(1e-7f));
    assertThat(s.received()[0][0]).containsExactly(new float[] {(float) (1.75 / 3), (float) (1.25 / 3)},
        within(1e-7f));
    // rows 0 and 1 fall in block floor(i * 2 / 3) = 0, row 2 in block 1; the two keys keep their own columns
    assertThat(s.thumbnail(new io.headscope.model.core.Head(0, 0)))
        .isDeepEqualTo(new float[][] {{1f, 0.75f}, {0.5f, 0.5f}});
  }

  @Test
  void keysArePooledToTheSideIndependentlyOfTheRows() {
    float[][] wide = {{0.5f, 0f, 0.25f, 0.25f, 0f}, {0f, 0f, 0f, 0.5f, 0.5f}};
    HeadSummaries s = HeadSummaries.of(new float[][][][] {{wide}}, 2);
    // keys 0..2 in block floor(j * 2 / 5) = 0, keys 3 and 4 in block 1; each row its own block
    assertThat(s.thumbnails()[0][0]).isDeepEqualTo(new float[][] {{0.5f, 0.25f}, {0f, 0.5f}});
    assertThat(s.received()[0][0]).containsExactly(new float[] {0.25f, 0f, 0.125f, 0.375f, 0.25f}, within(0f));
  }
}
