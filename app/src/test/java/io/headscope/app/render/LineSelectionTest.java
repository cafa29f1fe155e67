package io.headscope.app.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.core.Head;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The line drawing's choice of lines, against a brute-force sort of every row. */
class LineSelectionTest {
  private static HeadMatrix matrix(float[][] v) {
    float max = 0;
    for (float[] r : v) {
      for (float x : r) {
        max = Math.max(max, x);
      }
    }
    List<String> tokens = IntStream.range(0, v.length).mapToObj(i -> "t" + i).toList();
    return new HeadMatrix(new Head(0, 0), HeadMatrix.Display.WEIGHTS, HeadMatrix.PairFilter.ALL, v, tokens, tokens,
        0, 0, max);
  }

  @Test
  void keepsTheStrongestKeysOfEachRowAboveTheThresholdLikeASortedRow() {
    Random r = new Random(7);
    int n = 40;
    float[][] v = new float[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        // many exact ties and many values under 2 % of the maximum
        v[i][j] = r.nextInt(4) == 0 ? 0.001f * r.nextInt(10) : 0.05f * r.nextInt(20);
      }
    }
    HeadMatrix m = matrix(v);
    for (int k : new int[] {1, 2, 5, 8}) {
      List<LineSelection.Line> got = LineSelection.strongest(List.of(m), k);
      for (int i = 0; i < n; i++) {
        int row = i;
        List<Integer> expected = new ArrayList<>();
        IntStream.range(0, n).boxed().filter(j -> v[row][j] >= LineSelection.MIN_SHARE * m.max())
            .sorted(Comparator.comparingDouble((Integer j) -> -v[row][j]).thenComparingInt(j -> j))
            .limit(k).forEach(expected::add);
        List<LineSelection.Line> mine = got.stream().filter(l -> l.query() == row).toList();
        // the same number of lines, and the same multiset of values (ties may pick other keys)
        assertThat(mine).hasSize(expected.size());
        assertThat(mine.stream().map(l -> v[row][l.key()]).sorted().toList())
            .isEqualTo(expected.stream().map(j -> v[row][j]).sorted().toList());
        mine.forEach(l -> assertThat(l.share()).isCloseTo(v[row][l.key()] / (double) m.max(), org.assertj.core.api.Assertions.within(1e-9)));
      }
    }
  }

  @Test
  void a512TokenMapDrawsAFewLinesPerTokenNotAQuarterMillion() {
    int n = 512;
    float[][] v = new float[n][n];
    for (float[] row : v) {
      java.util.Arrays.fill(row, 1f / n);
    }
    List<LineSelection.Line> lines = LineSelection.strongest(List.of(matrix(v)), LineSelection.perQuery(n, 1));
    assertThat(lines).hasSize(n * LineSelection.perQuery(n, 1));
    assertThat(LineSelection.perQuery(n, 1)).isLessThanOrEqualTo(4);
    assertThat(LineSelection.perQuery(20, 1)).isEqualTo(8);
    assertThat(LineSelection.perQuery(20, 12)).isEqualTo(4);
  }

  @Test
  void headColoursAreDistinctWithinALayer() {
    assertThat(IntStream.range(0, 12).map(LineSelection::headColor).distinct().count()).isEqualTo(12);
  }
}
