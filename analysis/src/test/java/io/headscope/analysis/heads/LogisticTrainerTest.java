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
   * A weight is a repeat count: fitting items with integer weights gives the model fitted on the same items
   * repeated that many times (standardisation, loss and penalty alike). Balanced weights give each class
   * the same total: classes of 6, 3 and 1 items get 10/18, 10/9 and 10/3 each.
   */
  @Test
  void integerWeightsAreRepeatsAndBalancedWeightsEqualiseTheClasses() {
    Random r = new Random(11);
    int n = 30;
    double[][] x = new double[n][2];
    int[] y = new int[n];
    double[] w = new double[n];
    List<double[]> xs = new ArrayList<>();
    List<Integer> ys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      x[i][0] = r.nextGaussian();
      x[i][1] = r.nextGaussian() + (i % 3);
      y[i] = (i % 3 + (r.nextInt(4) == 0 ? 1 : 0)) % 3;
      w[i] = 1 + r.nextInt(3);
      for (int t = 0; t < w[i]; t++) {
        xs.add(x[i]);
        ys.add(y[i]);
      }
    }
    List<String> features = List.of("u", "v");
    LogisticModel weighted = LogisticTrainer.fit(features, THREE, x, y, w, 0.05, "weighted");
    LogisticModel repeated = LogisticTrainer.fit(features, THREE, xs.toArray(double[][]::new),
        ys.stream().mapToInt(Integer::intValue).toArray(), 0.05, "repeated");
    for (int i = 0; i < n; i++) {
      assertThat(weighted.probabilities(x[i])).containsExactly(repeated.probabilities(x[i]), within(1e-8));
    }
    assertThat(LogisticTrainer.balanced(new int[] {0, 0, 0, 0, 0, 0, 1, 1, 1, 2}, 3))
        .containsExactly(new double[] {10 / 18.0, 10 / 18.0, 10 / 18.0, 10 / 18.0, 10 / 18.0, 10 / 18.0, 10 / 9.0,
            10 / 9.0, 10 / 9.0, 10 / 3.0}, within(1e-15));
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
