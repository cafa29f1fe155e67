package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDManager;
import io.headscope.model.engine.CompositionNorms.Method;
import io.headscope.model.engine.CompositionNorms.Mode;
import java.util.EnumSet;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Both ways of summing the pair norms (the Gram vectors, cut into 1 to 4 diagonal blocks, and the dh x dh
 * blocks of one product) against {@code ||A B||_F^2} formed the long way in double: the d x d matrices
 * {@code A = W_V W_O} and {@code B} multiplied out entry by entry.
 *
 * <p>The bound, on the squares divided by {@code ||A||^2 ||B||^2}: float32 dot products of length n carry an
 * error under n u (u = 2^-24) of the sum of their terms' sizes. The Gram route takes products of length dh
 * (the dh x dh Gram matrices, their Cholesky factors, {@code R_V W_O}, the d x d Gram matrices, each of whose
 * sizes is bounded by the norms through Cauchy-Schwarz and {@code ||X^T X||_F <= ||X||_F^2}) and one of
 * length (d/n)^2 per block, the blocks summed in double; the cross route lengths dh and d. Twice
 * {@code ((d/n)^2 + d + 8 dh) u} covers every term with room for the Cholesky's own dh u.
 */
class CompositionNormsTest {
  private static final double U = Math.ulp(1f) / 2;

  @ParameterizedTest(name = "{0}, {1} blocks, d = {2}")
  @CsvSource({"GRAM, 1, 24", "GRAM, 2, 24", "GRAM, 3, 24", "GRAM, 4, 24", "CROSS, 0, 24", "GRAM, 0, 20"})
  void everyPairsNormEqualsTheFullProductInDouble(Method method, int blocks, int d) {
    int layers = 3;
    int h = 4;
    int r = d / h;
    HeadWeights w = random(layers, h, d, r, 11 + d);
    CompositionNorms got;
    try (NDManager m = NDManager.newBaseManager()) {
      got = CompositionNorms.compute(m, layers, h, d, r, CompositionNorms.fromHeadWeights(w), EnumSet.allOf(Mode.class),
          method, blocks);
    }
    int n = blocks > 0 ? blocks : CompositionNorms.gramBlocks(d);
    double bound = 2 * ((double) (d / n) * (d / n) + d + 8 * r) * U;
    int checked = 0;
    for (int l1 = 0; l1 < layers; l1++) {
      for (int i = 0; i < h; i++) {
        double[][] a = mul(w.wv(l1, i), w.wo(l1, i));
        double na = squares(a);
        assertThat(got.ov()[l1][i] / na).isCloseTo(1, within(bound));
        for (int l2 = 0; l2 < layers; l2++) {
          for (int j = 0; j < h; j++) {
            double[][] qk = mul(w.wq(l2, j), transpose(w.wk(l2, j)));
            double[][] ovr = mul(w.wv(l2, j), w.wo(l2, j));
            for (Mode mode : Mode.values()) {
              double[][] b = switch (mode) {
                case Q -> qk;
                case K -> transpose(qk);
                case V -> ovr;
              };
              double want = l1 < l2 ? squares(mul(a, b)) : 0;
              double norm = na * squares(b);
              assertThat(got.pairs().get(mode)[l1][i][l2][j] / norm)
                  .as("%s %d-%d -> %d-%d", mode, l1, i, l2, j).isCloseTo(want / norm, within(bound));
              checked++;
            }
          }
        }
        assertThat(got.qk()[l1][i] / squares(mul(w.wq(l1, i), transpose(w.wk(l1, i))))).isCloseTo(1, within(bound));
      }
    }
    assertThat(checked).isEqualTo(3 * layers * h * layers * h);
  }

  @org.junit.jupiter.api.Test
  void theDefaultBlocksAreAtMost128WideAndAtLeastTwoWhereTheWidthIsEven() {
    assertThat(CompositionNorms.gramBlocks(768)).isEqualTo(6);
    assertThat(CompositionNorms.gramBlocks(1024)).isEqualTo(8);
    assertThat(CompositionNorms.gramBlocks(16)).isEqualTo(2);
    assertThat(CompositionNorms.gramBlocks(15)).isEqualTo(1);
    // 6 blocks of 128: 21 on and above the diagonal
    assertThat(CompositionNorms.gramLength(768, 6)).isEqualTo(21L * 128 * 128);
  }

  /** Gaussian weights, with head 0 of layer 1 reading exactly what head 0 of layer 0 writes, so some pairs are large. */
  private static HeadWeights random(int layers, int h, int d, int r, long seed) {
    SplittableRandom g = new SplittableRandom(seed);
    float[][][] m = new float[4][layers][h * d * r];
    for (float[][] a : m) {
      for (float[] x : a) {
        for (int i = 0; i < x.length; i++) {
          x[i] = (float) g.nextGaussian();
        }
      }
    }
    // W_Q of (1, 0), (d, dh), set to the transpose of W_O of (0, 0), (dh, d)
    for (int i = 0; i < d; i++) {
      for (int a = 0; a < r; a++) {
        m[0][1][i * r + a] = m[3][0][a * d + i];
      }
    }
    return new HeadWeights(layers, h, d, r, m[0], m[1], m[2], m[3]);
  }

  private static double[][] mul(double[][] a, double[][] b) {
    double[][] c = new double[a.length][b[0].length];
    for (int i = 0; i < a.length; i++) {
      for (int t = 0; t < b.length; t++) {
        for (int j = 0; j < b[0].length; j++) {
          c[i][j] += a[i][t] * b[t][j];
        }
      }
    }
    return c;
  }

  private static double[][] transpose(double[][] a) {
    double[][] t = new double[a[0].length][a.length];
    for (int i = 0; i < a.length; i++) {
      for (int j = 0; j < a[0].length; j++) {
        t[j][i] = a[i][j];
      }
    }
    return t;
  }

  private static double squares(double[][] a) {
    double s = 0;
    for (double[] row : a) {
      for (double x : row) {
        s += x * x;
      }
    }
    return s;
  }
}
