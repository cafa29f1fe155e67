package io.headscope.analysis.causal;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.Float32Bounds;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.ReferenceBertSteps;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Attribution patching against the directional derivative of the metric, by central differences of plain
 * runs that move one cell's value a little toward the source run's: {@code (M(+e) - M(-e)) / 2e}.
 */
class AttributionPatchingTest {
  @TempDir static Path dir;
  static BertModel model;
  static PatchInputs pair;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(2, 4, 11).writeTo(dir.resolve("tiny")));
    // inputs far apart, so that the derivatives stand well above the float32 rounding of the metric
    pair = PatchInputs.of(model, "the king was in paris and [MASK] was a queen .", "a dog ran on the mat [MASK] is the big .");
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @ParameterizedTest
  @CsvSource({"HEAD, LOGIT_DIFF", "HEAD, PROB", "HEAD, LOGPROB", "RESID_PRE, LOGIT_DIFF", "V, LOGIT_DIFF",
      "MLP, PROB"})
  void attributionIsTheDirectionalDerivativeTowardTheSource(PatchSite site, TargetMetric.Kind kind) {
    TargetMetric metric = new TargetMetric(kind, model.tokenizer().singleTokenId("she"),
        kind == TargetMetric.Kind.LOGPROB ? -1 : model.tokenizer().singleTokenId("he"));
    double[][] attr = new AttributionPatching(model).run(pair, metric, site, PatchDirection.DENOISE);
    int checked = 0;
    for (int l = 0; l < 2; l++) {
      HookPoint p = HookPoint.of(site.kind(), l);
      Activation base = capture(pair.corrupted(), p);
      Activation src = capture(pair.clean(), p);
      double largest = 0;
      for (double[] row : attr) {
        for (double v : row) {
          largest = Math.max(largest, Math.abs(v));
        }
      }
      for (int c = 0; c < attr[l].length; c++) {
        if (Math.abs(attr[l][c]) < 0.1 * largest) {
          continue; // float32 runs cannot resolve a tiny derivative to 1e-3 of itself
        }
        double fd = derivative(metric, pair.corrupted(), site, p, base, src, c);
        assertThat(Math.abs(attr[l][c] - fd)).as("%s %s layer %d cell %d: %g vs %g", site, kind, l, c, attr[l][c], fd)
            .isLessThanOrEqualTo(1e-3 * Math.abs(fd));
        checked++;
      }
    }
    assertThat(checked).as("cells checked").isGreaterThan(1);
  }

  @Test
  void patchingLeavesNoNativeArrayBehind() {
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, model.tokenizer().singleTokenId("she"),
        model.tokenizer().singleTokenId("he"));
    new AttributionPatching(model).run(pair, metric, PatchSite.HEAD, PatchDirection.DENOISE);
    long before = model.liveNativeArrays();
    for (int i = 0; i < 3; i++) {
      new AttributionPatching(model).run(pair, metric, PatchSite.RESID_MID, PatchDirection.DENOISE);
      new ActivationPatching(model).run(pair, metric, PatchSite.HEAD, PatchDirection.NOISE);
    }
    assertThat(model.liveNativeArrays()).isEqualTo(before);
  }

  /**
   * Noising, the estimate for head 2 of layer 1 is {@code grad M(clean) . (result_corrupted - result_clean)}
   * at that head, every token. The derivative is taken in float64 on {@link ReferenceBertSteps} (the same
   * weights, its own arithmetic): a central difference at h = 1e-4 has a truncation of O(h^2) ~ 1e-8 and
   * a rounding of ~1e-16 |M| / h, both far below the bound. (The float32 differences this test used to fit
   * carry the forward pass's rounding, ~gamma_N |M| with |M| ~ 9, over steps down to 0.006: more than the
   * bound, and what differed between CPUs.) The bound is the engine's float32 backward pass alone,
   * {@link Float32Bounds#gradient} of the terms' scale {@code sum_i |dM/da_i (src_i - base_i)|}, each
   * term's derivative from the reference too.
   */
  @Test
  void theNoisingEstimateIsTakenOnTheCleanRun() {
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, model.tokenizer().singleTokenId("she"),
        model.tokenizer().singleTokenId("he"));
    double[][] noise = new AttributionPatching(model).run(pair, metric, PatchSite.HEAD, PatchDirection.NOISE);
    ReferenceBertSteps reference = new ReferenceBertSteps(dir.resolve("tiny"));
    double[][] x = reference.embeddings(pair.clean().ids());
    double[][][] base = reference64Result(reference, x, 1);
    double[][][] src = reference64Result(reference, reference.embeddings(pair.corrupted().ids()), 1);
    int pos = pair.positions()[0];
    int head = 2;
    double h = 1e-4;
    java.util.function.BiFunction<double[][][], Double, Double> moved = (delta, e) -> {
      double[] lp = ReferenceBertSteps.logSoftmax(reference.logits(x, (l, result) -> {
        if (l == 1) {
          for (int t = 0; t < result.length; t++) {
            for (int o = 0; o < result[t][head].length; o++) {
              result[t][head][o] = base[t][head][o] + e * delta[t][head][o];
            }
          }
        }
      })[pos]);
      return metric.value(lp[(int) metric.target()], lp[(int) metric.contrast()]);
    };
    double[][][] step = new double[base.length][base[0].length][base[0][0].length];
    for (int t = 0; t < base.length; t++) {
      for (int o = 0; o < base[t][head].length; o++) {
        step[t][head][o] = src[t][head][o] - base[t][head][o];
      }
    }
    double fd = (moved.apply(step, h) - moved.apply(step, -h)) / (2 * h);
    double scale = 0;
    for (int t = 0; t < base.length; t++) {
      for (int o = 0; o < base[t][head].length; o++) {
        double[][][] one = new double[base.length][base[0].length][base[0][0].length];
        one[t][head][o] = step[t][head][o];
        scale += Math.abs((moved.apply(one, h) - moved.apply(one, -h)) / (2 * h));
      }
    }
    assertThat(Math.abs(fd)).as("the estimate stands above the rounding").isGreaterThan(100 * 1e-4 * scale);
    double bound = Float32Bounds.gradient(model.config(), pair.length());
    assertThat(Math.abs(noise[1][head] - fd)).as("%g vs %g", noise[1][head], fd).isLessThanOrEqualTo(bound * scale);
  }

  /** The reference's per-head outputs of {@code layer}, {@code [token][head][hidden]}. */
  static double[][][] reference64Result(ReferenceBertSteps reference, double[][] x, int layer) {
    double[][][][] kept = new double[1][][][];
    reference.logits(x, (l, result) -> {
      if (l == layer) {
        kept[0] = new double[result.length][result[0].length][];
        for (int t = 0; t < result.length; t++) {
          for (int hh = 0; hh < result[t].length; hh++) {
            kept[0][t][hh] = result[t][hh].clone();
          }
        }
      }
    });
    return kept[0];
  }

  /**
   * The derivative along the step from central differences at several steps: {@code g(h) = (M(h) - M(-h)) / 2h
   * = M'(0) + c3 h^2 + c5 h^4 + ...}, fitted by least squares over h = 0.00625 .. 0.05, whose constant term is the
   * derivative. One step cannot do it in float32: a metric near -9 rounds at ~1e-6, so a step small enough to
   * ignore the curvature leaves a rounding error of 1e-3 of the derivative, and a larger one meets the curvature.
   */
  static double derivative(TargetMetric m, Encoding e, PatchSite site, HookPoint p, Activation base, Activation src,
      int cell) {
    double[][] a = new double[3][3];
    double[] b = new double[3];
    for (int k = 1; k <= 8; k++) {
      double h = 0.00625 * k;
      double g = (metric(m, e, moved(site, p, base, src, cell, h)) - metric(m, e, moved(site, p, base, src, cell, -h)))
          / (2 * h);
      double[] x = {1, h * h, h * h * h * h};
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          a[i][j] += x[i] * x[j];
        }
        b[i] += x[i] * g;
      }
    }
    return solve(a, b)[0];
  }

  /** Gaussian elimination with partial pivoting of a small system. */
  static double[] solve(double[][] a, double[] b) {
    int n = b.length;
    for (int c = 0; c < n; c++) {
      int pivot = c;
      for (int r = c + 1; r < n; r++) {
        if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) {
          pivot = r;
        }
      }
      double[] row = a[c];
      a[c] = a[pivot];
      a[pivot] = row;
      double t = b[c];
      b[c] = b[pivot];
      b[pivot] = t;
      for (int r = c + 1; r < n; r++) {
        double f = a[r][c] / a[c][c];
        for (int k = c; k < n; k++) {
          a[r][k] -= f * a[c][k];
        }
        b[r] -= f * b[c];
      }
    }
    double[] x = new double[n];
    for (int r = n - 1; r >= 0; r--) {
      double s = b[r];
      for (int k = r + 1; k < n; k++) {
        s -= a[r][k] * x[k];
      }
      x[r] = s / a[r][r];
    }
    return x;
  }

  /** The point's value {@code base + e (src - base)} in one cell, as a patch (batch of one). */
  static Intervention moved(PatchSite site, HookPoint p, Activation base, Activation src, int cell, double e) {
    float[] out = base.data().clone();
    int[] s = base.shape();
    for (int i = 0; i < out.length; i++) {
      boolean in = site == PatchSite.HEAD ? (i / s[3]) % s[2] == cell
          : site.perHead() ? i / (s[2] * s[3]) == cell : i / s[2] == cell;
      if (in) {
        out[i] = (float) (base.data()[i] + e * (src.data()[i] - base.data()[i]));
      }
    }
    return new Intervention.Patch(p, new Activation(out, s));
  }

  static Activation capture(Encoding e, HookPoint p) {
    return model.run(RunRequest.of(e).capture(Capture.points(p.kind()))).cache().get(p);
  }

  static double metric(TargetMetric m, Encoding e, Intervention i) {
    float[] logp = model.run(RunRequest.of(e).intervene(i).read(Readouts.none().withLogProbs(pair.positions())))
        .logProbs()[0][0];
    return m.value(logp[(int) m.target()], m.hasContrast() ? logp[(int) m.contrast()] : 0);
  }
}
