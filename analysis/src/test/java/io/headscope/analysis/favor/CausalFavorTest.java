package io.headscope.analysis.favor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The Performer's unidirectional FAVOR+ for causal models: row i is {@code phi(q_i).phi(k_j)} over the
 * prefix sum {@code sum_{j' <= i} phi(q_i).phi(k_j')}, computed here from the kernel estimate itself
 * ({@link Favor#kernel}, which never normalises), and with many features it tends to the causal softmax.
 */
class CausalFavorTest {
  @Test
  void eachRowIsTheKernelOverItsPrefixSumAndLaterKeysGetNothing() {
    Random r = new Random(11);
    int n = 6;
    int dh = 4;
    float[][] q = randomRows(r, n, dh);
    float[][] k = randomRows(r, n, dh);
    double[][] w = RandomFeatures.draw(RandomFeatures.Kind.ORF, 32, dh, new Random(2));
    double[][] a = Favor.map(q, k, w, true);
    double scale = Math.pow(dh, -0.25);
    for (int i = 0; i < n; i++) {
      double[] kernels = new double[n];
      double prefix = 0;
      for (int j = 0; j <= i; j++) {
        kernels[j] = Favor.kernel(scaled(q[i], scale), scaled(k[j], scale), w);
        prefix += kernels[j];
      }
      for (int j = 0; j < n; j++) {
        assertThat(a[i][j]).as("row %d key %d", i, j).isCloseTo(j <= i ? kernels[j] / prefix : 0.0, within(1e-12));
      }
    }
  }

  @Test
  void withManyFeaturesItApproachesTheCausalSoftmax() {
    Random r = new Random(5);
    int n = 5;
    int dh = 4;
    float[][] q = randomRows(r, n, dh);
    float[][] k = randomRows(r, n, dh);
    double[][] a = Favor.map(q, k, RandomFeatures.draw(RandomFeatures.Kind.ORF, 20000, dh, new Random(9)), true);
    for (int i = 0; i < n; i++) {
      double max = Double.NEGATIVE_INFINITY;
      double[] s = new double[i + 1];
      for (int j = 0; j <= i; j++) {
        for (int c = 0; c < dh; c++) {
          s[j] += q[i][c] * k[j][c] / Math.sqrt(dh);
        }
        max = Math.max(max, s[j]);
      }
      double sum = 0;
      for (int j = 0; j <= i; j++) {
        sum += Math.exp(s[j] - max);
      }
      for (int j = 0; j <= i; j++) {
        assertThat(a[i][j]).isCloseTo(Math.exp(s[j] - max) / sum, within(0.02));
      }
    }
  }

  private static float[][] randomRows(Random r, int n, int dh) {
    float[][] x = new float[n][dh];
    for (float[] row : x) {
      for (int c = 0; c < dh; c++) {
        row[c] = (float) (r.nextGaussian() * 0.7);
      }
    }
    return x;
  }

  private static double[] scaled(float[] x, double s) {
    double[] out = new double[x.length];
    for (int c = 0; c < x.length; c++) {
      out[c] = x[c] * s;
    }
    return out;
  }
}
