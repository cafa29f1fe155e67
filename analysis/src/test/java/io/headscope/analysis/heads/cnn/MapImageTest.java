package io.headscope.analysis.heads.cnn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link MapImage} against computations written from its definition rather than from its code: at 512
 * tokens the blocks are the 16 x 16 squares one would draw by hand, and at 32 tokens or fewer each cell
 * is the nearest position's weight.
 */
class MapImageTest {
  private static final int N = 512;

  /** A row-stochastic map: {@code weight} on the diagonal, the rest spread evenly. */
  private static float[][] diagonal(int n, float weight) {
    float[][] m = new float[n][n];
    for (int i = 0; i < n; i++) {
      java.util.Arrays.fill(m[i], (1 - weight) / (n - 1));
      m[i][i] = weight;
    }
    return m;
  }

  @Test
  void aOneTokenDiagonalOf512TokensSurvivesInTheDiagonalCellsOnly() {
    float[][][] im = MapImage.of(diagonal(N, 0.9f), null);
    float rest = 0.1f / (N - 1);
    for (int r = 0; r < MapImage.SIZE; r++) {
      for (int c = 0; c < MapImage.SIZE; c++) {
        // the maximum keeps the line as bright as in the map; the mean would show 0.9 / 16
        assertThat(im[MapImage.MAX][r][c]).as("cell %d,%d", r, c).isCloseTo(r == c ? 0.9f : rest, within(1e-6f));
      }
      // 16 of a query's keys fall in its diagonal cell: 0.9 plus 15 of the rest
      assertThat(im[MapImage.MASS][r][r]).isCloseTo(0.9f + 15 * rest, within(1e-5f));
    }
  }

  @Test
  void aColumnOnTheLastTokenSurvivesAt512Tokens() {
    float[][] m = new float[N][N];
    for (float[] row : m) {
      java.util.Arrays.fill(row, 0.2f / (N - 1));
      row[N - 1] = 0.8f;
    }
    float[][][] im = MapImage.of(m, null);
    for (int r = 0; r < MapImage.SIZE; r++) {
      assertThat(im[MapImage.MAX][r][MapImage.SIZE - 1]).isEqualTo(0.8f);
      assertThat(im[MapImage.MAX][r][0]).isCloseTo(0.2f / (N - 1), within(1e-7f));
    }
  }

  @Test
  void at512TokensEachCellIsTheMaximumAndMassOfItsHandDrawn16By16Square() {
    Random rnd = new Random(7);
    float[][] m = new float[N][N];
    for (float[] row : m) {
      for (int j = 0; j < N; j++) {
        row[j] = rnd.nextFloat();
      }
    }
    long[] seg = new long[N];
    for (int i = 300; i < N; i++) {
      seg[i] = 1;
    }
    float[][][] im = MapImage.of(m, seg);
    for (int r = 0; r < 32; r++) {
      for (int c = 0; c < 32; c++) {
        float max = 0;
        double sum = 0;
        int same = 0;
        for (int i = 16 * r; i < 16 * r + 16; i++) {
          for (int j = 16 * c; j < 16 * c + 16; j++) {
            max = Math.max(max, m[i][j]);
            sum += m[i][j];
            same += (i < 300) == (j < 300) ? 1 : 0;
          }
        }
        assertThat(im[MapImage.MAX][r][c]).isEqualTo(max);
        assertThat((double) im[MapImage.MASS][r][c]).isCloseTo(sum / 16, within(1e-4));
        assertThat(im[MapImage.SAME_SEGMENT][r][c]).isEqualTo(same / 256f);
      }
    }
  }

  @Test
  void shortMapsAreUpsampledByNearestNeighbourWithoutLoss() {
    Random rnd = new Random(11);
    for (int n : new int[] {1, 5, 13, 31, 32}) {
      float[][] m = new float[n][n];
      for (float[] row : m) {
        for (int j = 0; j < n; j++) {
          row[j] = rnd.nextFloat();
        }
      }
      float[][][] im = MapImage.of(m, null);
      boolean[][] seen = new boolean[n][n];
      for (int r = 0; r < 32; r++) {
        for (int c = 0; c < 32; c++) {
          // the position under the cell's top-left corner when the map is stretched over the image
          int i = (int) Math.floor(r * n / 32.0);
          int j = (int) Math.floor(c * n / 32.0);
          assertThat(im[MapImage.MAX][r][c]).isEqualTo(m[i][j]);
          assertThat(im[MapImage.MASS][r][c]).isEqualTo(m[i][j]);
          assertThat(im[MapImage.SAME_SEGMENT][r][c]).isEqualTo(1f);
          seen[i][j] = true;
        }
      }
      for (boolean[] row : seen) {
        assertThat(row).as("every position of a %d-token map shows", n).containsOnly(true);
      }
    }
  }

  @Test
  void everyPositionOfALongMapFallsInExactlyOneBlock() {
    for (int n : new int[] {33, 100, 129, 300, 492, 512}) {
      int[] covered = new int[n];
      for (int k = 0; k < MapImage.SIZE; k++) {
        for (int i = MapImage.lo(k, n); i < MapImage.hi(k, n); i++) {
          covered[i]++;
        }
      }
      assertThat(covered).as("%d tokens", n).containsOnly(1);
    }
  }

  @Test
  void theMarkedChannelIsTheShareOfMarkedKeysDownEachColumn() {
    boolean[] marked = new boolean[N];
    marked[0] = true; // [CLS]
    marked[N - 1] = true; // [SEP]
    marked[N - 2] = true; // a full stop
    float[][][] im = MapImage.of(diagonal(N, 0.9f), null, marked);
    assertThat(im.length).isEqualTo(MapImage.CHANNELS + 1);
    assertThat(im[MapImage.MAX]).isDeepEqualTo(MapImage.of(diagonal(N, 0.9f), null)[MapImage.MAX]);
    for (int r = 0; r < MapImage.SIZE; r++) {
      assertThat(im[MapImage.CHANNELS][r][0]).isEqualTo(1 / 16f);
      assertThat(im[MapImage.CHANNELS][r][MapImage.SIZE - 1]).isEqualTo(2 / 16f);
      assertThat(im[MapImage.CHANNELS][r][5]).isZero();
    }
  }
}
