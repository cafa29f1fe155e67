package io.headscope.model.robust;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.AttentionTrace;

/** Checks shared by the robustness tests. */
final class Maps {
  private Maps() {}

  /** Every row of every head's map is a probability distribution (finite, non-negative, sums to 1). */
  static void assertRowsAreDistributions(AttentionTrace t, double tolerance) {
    int n = t.encoding().length();
    for (float[][][] layer : t.attention()) {
      for (float[][] map : layer) {
        assertThat(map).hasNumberOfRows(n);
        for (float[] row : map) {
          double sum = 0;
          for (float p : row) {
            assertThat(Float.isFinite(p) && p >= 0).as("probability %s", p).isTrue();
            sum += p;
          }
          assertThat(sum).isCloseTo(1.0, org.assertj.core.data.Offset.offset(tolerance));
        }
      }
    }
  }
}
