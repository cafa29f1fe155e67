package io.headscope.analysis.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Rollout and flow by hand on two layers of two tokens, and flow against a brute-force minimum cut. */
class RolloutAndFlowTest {
  // one head per layer; layer 1: token a keeps to itself, b splits; layer 2: both look at b
  static final float[][][][] TWO_LAYERS = {
      {{{1f, 0f}, {0.5f, 0.5f}}},
      {{{0f, 1f}, {0f, 1f}}}};

  @Test
  void rolloutByHand() {
    double[][][] r = Rollout.of(TWO_LAYERS);
    // Ahat_1 = [[1, 0], [0.25, 0.75]], Ahat_2 = [[0.5, 0.5], [0, 1]], R_2 = Ahat_2 Ahat_1
    assertThat(r[0][1]).containsExactly(new double[] {0.25, 0.75}, within(1e-12));
    assertThat(r[1][0]).containsExactly(new double[] {0.625, 0.375}, within(1e-12));
    assertThat(r[1][1]).containsExactly(new double[] {0.25, 0.75}, within(1e-12));
  }

  @Test
  void flowByHand() {
    AttentionFlow f = AttentionFlow.of(TWO_LAYERS);
    // into a2: a0->a1->a2 (0.5) + a0->b1->a2 (0.25) = 0.75; b0->b1->a2 = min(0.75, 0.5) = 0.5
    assertThat(f.raw()[0]).containsExactly(new double[] {0.75, 0.5}, within(1e-9));
    // into b2: only through b1: a0 0.25, b0 0.75
    assertThat(f.raw()[1]).containsExactly(new double[] {0.25, 0.75}, within(1e-9));
    assertThat(f.normalized()[0]).containsExactly(new double[] {0.6, 0.4}, within(1e-9));
  }

  @Test
  void rolloutRowsSumToOneEvenWithAHeadSwitchedOff() {
    Random r = new Random(5);
    float[][][][] maps = random(r, 4, 3, 6);
    for (float[] row : maps[2][1]) {
      java.util.Arrays.fill(row, 0f); // zero mode: this head's rows sum to 0
    }
    for (double[][] layer : Rollout.of(maps)) {
      for (double[] row : layer) {
        assertThat(java.util.Arrays.stream(row).sum()).isCloseTo(1.0, within(1e-12));
      }
    }
  }

  @Test
  void flowEqualsTheMinimumCutOnRandomGraphsAndStaysWithinItsCapacities() {
    Random r = new Random(11);
    for (int trial = 0; trial < 20; trial++) {
      int layers = 2 + r.nextInt(2);
      int n = 2 + r.nextInt(2);
      float[][][][] maps = random(r, layers, 2, n);
      AttentionFlow f = AttentionFlow.of(maps);
      double[][][] caps = new double[layers][][];
      for (int l = 0; l < layers; l++) {
        caps[l] = Rollout.mixed(maps[l]);
      }
      for (int j = 0; j < n; j++) {
        double into = 0;
        for (int i = 0; i < n; i++) {
          into += caps[layers - 1][j][i];
          assertThat(f.raw()[j][i]).as("trial %d, %d -> %d", trial, i, j)
              .isCloseTo(minCut(caps, n, i, j), within(1e-9));
        }
        double total = 0;
        for (int i = 0; i < n; i++) {
          total += f.raw()[j][i];
        }
        for (double v : f.raw()[j]) {
          assertThat(v).as("a flow into %d is bounded by the capacities into it", j).isLessThanOrEqualTo(into + 1e-9);
        }
        assertThat(total).isGreaterThan(0);
      }
    }
  }

  /**
   * The minimum s-t cut by enumerating every set of nodes on the source's side (the max-flow min-cut
   * theorem): node (l, t) is {@code l * n + t}, capacity (l-1, i) -> (l, j) is {@code caps[l-1][j][i]}.
   */
  static double minCut(double[][][] caps, int n, int source, int sinkToken) {
    int layers = caps.length;
    int nodes = (layers + 1) * n;
    int sink = layers * n + sinkToken;
    double best = Double.MAX_VALUE;
    for (long mask = 0; mask < (1L << nodes); mask++) {
      if ((mask >> source & 1) == 0 || (mask >> sink & 1) == 1) {
        continue;
      }
      double cut = 0;
      for (int l = 1; l <= layers; l++) {
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < n; j++) {
            int from = (l - 1) * n + i;
            int to = l * n + j;
            if ((mask >> from & 1) == 1 && (mask >> to & 1) == 0) {
              cut += caps[l - 1][j][i];
            }
          }
        }
      }
      best = Math.min(best, cut);
    }
    return best;
  }

  static float[][][][] random(Random r, int layers, int heads, int n) {
    float[][][][] maps = new float[layers][heads][n][n];
    for (float[][][] layer : maps) {
      for (float[][] map : layer) {
        for (float[] row : map) {
          double sum = 0;
          for (int i = 0; i < n; i++) {
            row[i] = (float) Math.pow(r.nextDouble(), 3);
            sum += row[i];
          }
          for (int i = 0; i < n; i++) {
            row[i] /= (float) sum;
          }
        }
      }
    }
    return maps;
  }
}
