package io.headscope.analysis.linguistics.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.linguistics.Sentence;
import io.headscope.analysis.linguistics.Word;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The probes' losses against a value worked by hand, and their gradients against finite differences. */
class ProbeGradientTest {
  private static final double H = 1e-5;

  /** Central differences of {@code f} at {@code x}, entry by entry. */
  private static double[] numeric(Minimizer.Objective f, double[] x) {
    double[] g = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      double[] up = x.clone();
      double[] down = x.clone();
      up[i] += H;
      down[i] -= H;
      g[i] = (f.valueAndGradient(up, null) - f.valueAndGradient(down, null)) / (2 * H);
    }
    return g;
  }

  private static void assertGradientMatches(Minimizer.Objective f, double[] x) {
    double[] analytic = new double[x.length];
    double v = f.valueAndGradient(x, analytic);
    assertThat(f.valueAndGradient(x, null)).as("value without the gradient").isEqualTo(v);
    double[] num = numeric(f, x);
    for (int i = 0; i < x.length; i++) {
      assertThat(analytic[i]).as("d/dx%d", i).isCloseTo(num[i], within(1e-7 + 1e-5 * Math.abs(num[i])));
    }
  }

  private static double[] randomPoint(int dim, Random r) {
    double[] x = new double[dim];
    for (int i = 0; i < dim; i++) {
      x[i] = r.nextGaussian();
    }
    return x;
  }

  private static double[] positive(int dim, Random r) {
    double[] x = new double[dim];
    for (int i = 0; i < dim; i++) {
      x[i] = 0.05 + r.nextDouble();
    }
    return x;
  }

  @Test
  void headSelectionGradientMatchesFiniteDifferences() {
    Random r = new Random(11);
    List<PairAttention> data = Synthetic.data(6, 2, 3, 1, 2, 0.3, r);
    double[] scale = positive(12, r);
    // a fresh objective for every evaluation: no line memo between them
    assertGradientMatches((t, g) -> new HeadSelectionLoss(data, scale, 0.03).valueAndGradient(t, g),
        randomPoint(12, r));
  }

  @Test
  void edgeGradientMatchesFiniteDifferences() {
    Random r = new Random(12);
    List<EdgeProbe.Sample> data = Probes.samples(Synthetic.data(8, 2, 3, 0, 1, 0.3, r), new SplittableRandom(3));
    assertThat(data).isNotEmpty();
    double[] mean = positive(12, r);
    double[] scale = positive(12, r);
    assertGradientMatches((t, g) -> new EdgeLoss(data, mean, scale, 0.03).valueAndGradient(t, g),
        randomPoint(13, r));
  }

  // "a b": a -> b, b root; one layer, one head: [CLS] a b [SEP]
  private static final Sentence TWO = new Sentence("d", "1", 1,
      List.of(new Word(1, "a", "X", 2, "dep"), new Word(2, "b", "X", 0, "root")), List.of());
  private static final float[][] MAP = {
      {0.1f, 0.2f, 0.3f, 0.4f},
      {0.5f, 0.1f, 0.3f, 0.1f},
      {0.2f, 0.6f, 0.1f, 0.1f},
      {0.25f, 0.25f, 0.25f, 0.25f}};

  @Test
  void headSelectionLossIsTheMeanNegativeLogSoftmaxOfTheGoldHeads() {
    PairAttention p = PairAttention.of(TWO, new float[][][][] {{MAP}});
    double w = 2.0; // dep->head weight
    double u = -1.0; // head->dep weight
    // word a: candidates [CLS] (w*A[1][0] + u*A[0][1]) and b (w*A[1][2] + u*A[2][1]); gold b
    double a0 = w * 0.5 + u * 0.2;
    double a2 = w * 0.3 + u * 0.6;
    // word b: candidates [CLS] and a; gold [CLS] (the root)
    double b0 = w * 0.2 + u * 0.3;
    double b1 = w * 0.6 + u * 0.3;
    double nll = (-Math.log(Math.exp(a2) / (Math.exp(a0) + Math.exp(a2)))
        - Math.log(Math.exp(b0) / (Math.exp(b0) + Math.exp(b1)))) / 2;
    double l2 = 0.1;
    double expected = nll + l2 / 2 * (w * w + u * u);
    double got = new HeadSelectionLoss(List.of(p), new double[] {1, 1}, l2).valueAndGradient(new double[] {w, u}, null);
    assertThat(got).isCloseTo(expected, within(1e-6));
    // and the scale: theta on features divided by 2 is the raw weight theta / 2
    double halved =
        new HeadSelectionLoss(List.of(p), new double[] {2, 2}, 0).valueAndGradient(new double[] {2 * w, 2 * u}, null);
    assertThat(halved).isCloseTo(nll, within(1e-6));
  }

  @Test
  void edgeLossIsTheMeanLogisticLossOfThePairs() {
    PairAttention p = PairAttention.of(TWO, new float[][][][] {{MAP}});
    EdgeProbe.Sample s = new EdgeProbe.Sample(p, List.of(new EdgeSampler.Pair(1, 2, true)));
    // one arc, features (A[1][2], A[2][1]) = (0.3, 0.6); centred on mean (0.1, 0.2), scale (0.5, 2)
    double[] theta = {1.5, -0.5, 0.25};
    double z = 0.25 + 1.5 * (0.3 - 0.1) / 0.5 + -0.5 * (0.6 - 0.2) / 2;
    double expected = Math.log(1 + Math.exp(-z)) + 0.2 / 2 * (1.5 * 1.5 + 0.5 * 0.5);
    double got = new EdgeLoss(List.of(s), new double[] {0.1, 0.2}, new double[] {0.5, 2}, 0.2)
        .valueAndGradient(theta, null);
    assertThat(got).isCloseTo(expected, within(1e-6));
  }

  @Test
  void alongALineTheRememberedScoresGiveTheValuesComputedAfresh() {
    // the optimiser's pattern: a gradient at a, then values at points a + t d; off the line, in full
    Random r = new Random(13);
    List<PairAttention> data = Synthetic.data(6, 2, 3, 1, 2, 0.3, r);
    List<EdgeProbe.Sample> pairs = Probes.samples(data, new SplittableRandom(4));
    double[] scale = positive(12, r);
    double[] mean = positive(12, r);
    HeadSelectionLoss heads = new HeadSelectionLoss(data, scale, 0.03);
    EdgeLoss edges = new EdgeLoss(pairs, mean, scale, 0.03);
    for (int line = 0; line < 3; line++) {
      double[] a = randomPoint(13, r);
      double[] d = randomPoint(13, r);
      heads.valueAndGradient(java.util.Arrays.copyOf(a, 12), new double[12]);
      edges.valueAndGradient(a, new double[13]);
      for (double t : new double[] {1, 0.5, 2.7, -0.3, 40, 1e-6}) {
        double[] x = a.clone();
        for (int i = 0; i < x.length; i++) {
          x[i] += t * d[i];
        }
        double[] x12 = java.util.Arrays.copyOf(x, 12);
        assertThat(heads.valueAndGradient(x12, null)).as("head selection, t = %s", t)
            .isCloseTo(new HeadSelectionLoss(data, scale, 0.03).valueAndGradient(x12, null), within(1e-9));
        assertThat(edges.valueAndGradient(x, null)).as("edge, t = %s", t)
            .isCloseTo(new EdgeLoss(pairs, mean, scale, 0.03).valueAndGradient(x, null), within(1e-9));
      }
      double[] off = randomPoint(13, r); // not on the line: computed in full
      assertThat(edges.valueAndGradient(off, null))
          .isCloseTo(new EdgeLoss(pairs, mean, scale, 0.03).valueAndGradient(off, null), within(1e-12));
    }
  }
}
