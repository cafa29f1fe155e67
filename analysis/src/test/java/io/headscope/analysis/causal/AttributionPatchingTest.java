package io.headscope.analysis.causal;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.BertModel;
import io.headscope.model.testing.Float32Bounds;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.ReferenceBertSteps;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Attribution patching against the directional derivative of the metric toward the source run's value of
 * one cell, taken in float64 on {@link ReferenceBertSteps} (the same weights, its own arithmetic), with
 * bounds derived from the float32 computation's length ({@link Float32Bounds}).
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

  /**
   * Denoising, each cell's estimate {@code grad M(corrupted) . (a_clean - a_corrupted)} against the
   * derivative of the float64 metric along that step (Richardson's central differences at 1e-3 of it: no
   * float32 rounding divided by a step, which is what made the float32 fits of this test differ between
   * CPUs). The bound adds the engine's two float32 errors: its backward pass, {@link Float32Bounds#gradient}
   * of the terms' scale {@code sum_i |dM/da_i (src_i - base_i)|}, and its forward values of the two runs,
   * each within {@link Float32Bounds#forward} of its own size, so {@code sum_i |dM/da_i| (|src_i| + |base_i|)}
   * times it; every {@code dM/da_i} from the reference by a central difference at 1e-4. Cells whose estimate
   * is under a tenth of the largest are left out (they only repeat the check at a higher relative cost).
   */
  @ParameterizedTest
  @CsvSource({"HEAD, LOGIT_DIFF", "HEAD, PROB", "HEAD, LOGPROB", "RESID_PRE, LOGIT_DIFF", "V, LOGIT_DIFF",
      "MLP, PROB"})
  void attributionIsTheDirectionalDerivativeTowardTheSource(PatchSite site, TargetMetric.Kind kind) {
    TargetMetric metric = new TargetMetric(kind, model.tokenizer().singleTokenId("she"),
        kind == TargetMetric.Kind.LOGPROB ? -1 : model.tokenizer().singleTokenId("he"));
    double[][] attr = new AttributionPatching(model).run(pair, metric, site, PatchDirection.DENOISE);
    ReferenceBertSteps reference = new ReferenceBertSteps(dir.resolve("tiny"));
    double[][] corrupted = reference.embeddings(pair.corrupted().ids(), pair.corrupted().segments());
    double[][] clean = reference.embeddings(pair.clean().ids(), pair.clean().segments());
    int tokens = pair.length();
    double backward = Float32Bounds.gradient(model.config(), tokens);
    double forward = Float32Bounds.forward(model.config(), tokens);
    double largest = 0;
    for (double[] row : attr) {
      for (double v : row) {
        largest = Math.max(largest, Math.abs(v));
      }
    }
    int checked = 0;
    for (int layer = 0; layer < 2; layer++) {
      for (int cell = 0; cell < attr[layer].length; cell++) {
        if (Math.abs(attr[layer][cell]) < 0.1 * largest) {
          continue;
        }
        int l = layer;
        int c = cell;
        double[][] base = view64(reference, corrupted, site, l, c, metric);
        double[][] src = view64(reference, clean, site, l, c, metric);
        List<int[]> cells = entries(site, c, base);
        double fd = ReferenceBertSteps.richardson(e -> metric64(reference, corrupted, site, l, c, metric, view -> {
          for (int[] i : cells) {
            view[i[0]][i[1]] = base[i[0]][i[1]] + e * (src[i[0]][i[1]] - base[i[0]][i[1]]);
          }
        }), 1e-3);
        double scale = 0;
        double sizes = 0;
        for (int[] i : cells) {
          double up = metric64(reference, corrupted, site, l, c, metric, view -> view[i[0]][i[1]] += 1e-4);
          double down = metric64(reference, corrupted, site, l, c, metric, view -> view[i[0]][i[1]] -= 1e-4);
          double g = (up - down) / 2e-4;
          scale += Math.abs(g * (src[i[0]][i[1]] - base[i[0]][i[1]]));
          sizes += Math.abs(g) * (Math.abs(src[i[0]][i[1]]) + Math.abs(base[i[0]][i[1]]));
        }
        assertThat(Math.abs(attr[l][c] - fd)).as("%s %s layer %d cell %d: %g vs %g", site, kind, l, c, attr[l][c], fd)
            .isLessThanOrEqualTo(backward * scale + forward * sizes);
        checked++;
      }
    }
    assertThat(checked).as("cells checked").isGreaterThan(1);
  }

  /** Changes the values of one cell's point in place: {@link #view64}'s matrix. */
  interface ViewEdit {
    void edit(double[][] view);
  }

  /**
   * The float64 metric of the run of {@code x} with {@code edit} applied to the site's point of layer
   * {@code layer}, seen as a matrix: for a head's result the rows {@code result[t][cell]} (T, d), else the
   * point's own matrix (T, d) or (T, H dh).
   */
  static double metric64(ReferenceBertSteps r, double[][] x, PatchSite site, int layer, int cell, TargetMetric m,
      ViewEdit edit) {
    ReferenceBertSteps.ResultEdit results = site != PatchSite.HEAD ? null : (l, result) -> {
      if (l == layer) {
        double[][] view = new double[result.length][];
        for (int t = 0; t < result.length; t++) {
          view[t] = result[t][cell];
        }
        edit.edit(view);
      }
    };
    String name = switch (site) {
      case V -> "v";
      case RESID_PRE -> "resid_pre";
      case MLP -> "mlp_out";
      default -> "";
    };
    ReferenceBertSteps.PointEdit points = site == PatchSite.HEAD ? null : (point, l, values) -> {
      if (l == layer && point.equals(name)) {
        edit.edit(values);
      }
    };
    double[] lp = ReferenceBertSteps.logSoftmax(r.logitsAt(0, x, results, points, new int[] {pair.positions()[0]})[0]);
    return m.value(lp[(int) m.target()], m.hasContrast() ? lp[(int) m.contrast()] : 0);
  }

  /** A copy of the site's matrix (as {@link #metric64} sees it) on the run of {@code x}. */
  static double[][] view64(ReferenceBertSteps r, double[][] x, PatchSite site, int layer, int cell, TargetMetric m) {
    double[][][] kept = new double[1][][];
    metric64(r, x, site, layer, cell, m, view -> {
      kept[0] = new double[view.length][];
      for (int t = 0; t < view.length; t++) {
        kept[0][t] = view[t].clone();
      }
    });
    return kept[0];
  }

  /** The entries of one cell in the view: a head's every token, a value head's columns, a position's row. */
  static List<int[]> entries(PatchSite site, int cell, double[][] view) {
    List<int[]> out = new java.util.ArrayList<>();
    int dh = model.config().hiddenSize() / model.config().numAttentionHeads();
    for (int t = 0; t < view.length; t++) {
      for (int o = 0; o < view[t].length; o++) {
        boolean in = switch (site) {
          case HEAD -> true;
          case V -> o / dh == cell;
          default -> t == cell;
        };
        if (in) {
          out.add(new int[] {t, o});
        }
      }
    }
    return out;
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
}
