package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogisticTrainerTest {
  static final List<String> THREE = List.of("a", "b", "c");

  /** The analytic gradient against central differences of the objective, at a random point. */
  @Test
  void gradientMatchesFiniteDifferences() {
    Random r = new Random(7);
    int n = 20;
    int f = 4;
    int k = 3;
    double[][] z = new double[n][f];
    int[] y = new int[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < f; j++) {
        z[i][j] = r.nextGaussian();
      }
      y[i] = r.nextInt(k);
    }
    double[] theta = new double[k * f + k];
    for (int p = 0; p < theta.length; p++) {
      theta[p] = r.nextGaussian();
    }
    double[] grad = new double[theta.length];
    LogisticTrainer.lossAndGradient(z, y, k, f, 0.3, theta, grad);
    double h = 1e-6;
    for (int p = 0; p < theta.length; p++) {
      double[] up = theta.clone();
      double[] down = theta.clone();
      up[p] += h;
      down[p] -= h;
      double[] scratch = new double[theta.length];
      double numeric = (LogisticTrainer.lossAndGradient(z, y, k, f, 0.3, up, scratch)
          - LogisticTrainer.lossAndGradient(z, y, k, f, 0.3, down, scratch)) / (2 * h);
      assertThat(grad[p]).as("parameter %d", p).isCloseTo(numeric, within(1e-7));
    }
  }

  /**
   * One binary feature and three classes is a saturated model: its maximum-likelihood probabilities are
   * the class frequencies at each feature value, known without any fitting. At x = 0 the classes come
   * 6, 3, 1 times; at x = 1, 1, 2, 7 times.
   */
  @Test
  void unpenalisedFitReproducesTheFrequenciesOfASaturatedModel() {
    List<double[]> x = new ArrayList<>();
    List<Integer> y = new ArrayList<>();
    int[][] counts = {{6, 3, 1}, {1, 2, 7}};
    for (int v = 0; v < 2; v++) {
      for (int c = 0; c < 3; c++) {
        for (int i = 0; i < counts[v][c]; i++) {
          x.add(new double[] {v});
          y.add(c);
        }
      }
    }
    LogisticModel m = LogisticTrainer.fit(List.of("x"), THREE, x.toArray(new double[0][]),
        y.stream().mapToInt(Integer::intValue).toArray(), 0, "test");
    assertThat(m.probabilities(new double[] {0})).containsExactly(new double[] {0.6, 0.3, 0.1}, within(1e-6));
    assertThat(m.probabilities(new double[] {1})).containsExactly(new double[] {0.1, 0.2, 0.7}, within(1e-6));
  }

  @Test
  void separableClassesAreAllLearnt() {
    Random r = new Random(3);
    double[][] centres = {{0, 0}, {4, 0}, {0, 4}};
    int n = 90;
    double[][] x = new double[n][];
    int[] y = new int[n];
    for (int i = 0; i < n; i++) {
      y[i] = i % 3;
      x[i] = new double[] {centres[y[i]][0] + 0.5 * r.nextGaussian(), centres[y[i]][1] + 0.5 * r.nextGaussian()};
    }
    LogisticModel m = LogisticTrainer.fit(List.of("u", "v"), THREE, x, y, 1e-3, "test");
    for (int i = 0; i < n; i++) {
      assertThat(LogisticModel.argmax(m.probabilities(x[i]))).isEqualTo(y[i]);
    }
  }

  @Test
  void aStrongerPenaltyShrinksTheWeights() {
    double[][] x = {{0}, {1}, {2}, {3}};
    int[] y = {0, 0, 1, 1};
    double weak = Math.abs(LogisticTrainer.fit(List.of("x"), List.of("lo", "hi"), x, y, 0.01, "t").weights()[1][0]);
    double strong = Math.abs(LogisticTrainer.fit(List.of("x"), List.of("lo", "hi"), x, y, 1, "t").weights()[1][0]);
    assertThat(strong).isLessThan(weak);
  }

  @Test
  void jsonRoundTripKeepsEveryNumber(@TempDir Path dir) throws Exception {
    LogisticModel m = new LogisticModel(List.of("p", "q"), List.of("a", "b"), new double[] {0.5, -1},
        new double[] {2, 0.25}, new double[][] {{1, 2}, {-3, 0.125}}, new double[] {0.1, -0.1}, 0.01, "hand");
    Path file = dir.resolve("m.json");
    m.write(file);
    try (InputStream in = Files.newInputStream(file)) {
      LogisticModel back = LogisticModel.read(in);
      assertThat(back.probabilities(new double[] {1, 1})).containsExactly(m.probabilities(new double[] {1, 1}), within(0.0));
      assertThat(back.trainedOn()).isEqualTo("hand");
    }
    // by hand at x = (1, 1): z = (0.25, 8); class a: 0.1 + 0.25 + 16 = 16.35; b: -0.1 - 0.75 + 1 = 0.15
    double pa = 1 / (1 + Math.exp(0.15 - 16.35));
    assertThat(m.probabilities(new double[] {1, 1})[0]).isCloseTo(pa, within(1e-15));
  }
}
