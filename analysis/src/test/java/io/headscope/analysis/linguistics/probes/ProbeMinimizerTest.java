package io.headscope.analysis.linguistics.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The optimiser reaches a known minimum. */
class ProbeMinimizerTest {
  @Test
  void anIllConditionedQuadraticReachesItsMinimum() {
    double[] c = {1, 10, 100, 0.1};
    double[] target = {3, -2, 0.5, 7};
    Minimizer.Objective f = (x, g) -> {
      double v = 0;
      for (int i = 0; i < x.length; i++) {
        double d = x[i] - target[i];
        v += c[i] * d * d;
        if (g != null) {
          g[i] = 2 * c[i] * d;
        }
      }
      return v;
    };
    double[] x = Minimizer.minimize(f, new double[4]);
    for (int i = 0; i < 4; i++) {
      assertThat(x[i]).isCloseTo(target[i], within(1e-4));
    }
  }

  @Test
  void aOneDimensionalLogisticLossReachesItsClosedFormMinimum() {
    // p positives and q negatives of one constant feature: the best logit is log(p / q)
    double p = 3;
    double q = 7;
    Minimizer.Objective f = (x, g) -> {
      double s = 1 / (1 + Math.exp(-x[0]));
      if (g != null) {
        g[0] = p * (s - 1) + q * s;
      }
      return -p * Math.log(s) - q * Math.log(1 - s);
    };
    assertThat(Minimizer.minimize(f, new double[1])[0]).isCloseTo(Math.log(p / q), within(1e-5));
  }

  @Test
  void trainingStopsWhenCancelled() {
    // a flag that turns true after a few passes over the data, as Ctrl-C does mid-training
    java.util.concurrent.atomic.AtomicInteger polls = new java.util.concurrent.atomic.AtomicInteger();
    java.util.List<PairAttention> data = Synthetic.data(20, 2, 2, 1, 1, 0.2, new java.util.Random(3));
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> Probes.run("t", data, data, 0, () -> polls.incrementAndGet() > 5))
        .isInstanceOf(java.util.concurrent.CancellationException.class);
    assertThat(polls.get()).isEqualTo(6);
  }
}
