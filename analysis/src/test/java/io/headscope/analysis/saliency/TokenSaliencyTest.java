package io.headscope.analysis.saliency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.Float32Bounds;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.ReferenceBertSteps;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenSaliencyTest {
  @TempDir Path dir;

  @Test
  void integratedGradientsAreCompleteWithinOnePercentAtFiftyStepsOnBert() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 2, 5).writeTo(dir.resolve("bert")))) {
      Encoding in = model.encode("the cat sat on the [MASK] .", null);
      long target = model.tokenizer().singleTokenId("cat");
      long contrast = model.tokenizer().singleTokenId("the");
      TokenSaliency s = new TokenSaliency(model);
      for (Baseline b : Baseline.values()) {
        SaliencyResult ig = s.integratedGradients(in, SaliencyMetric.of(target, -1), b, 50, p -> { });
        // f(input) and f(baseline) by plain forward passes, not by the integration
        double delta = metric(model, in, s.embeddings(in), target, -1) - metric(model, in, b.of(model, in), target, -1);
        assertThat(ig.total()).as(b.label).isCloseTo(delta, within(0.01 * Math.abs(delta)));
        assertThat(ig.completenessError()).isLessThan(0.01);
      }
      SaliencyResult diff = s.integratedGradients(in, SaliencyMetric.of(target, contrast), Baseline.ZERO, 50, p -> { });
      assertThat(diff.completenessError()).isLessThan(0.01);
    }
  }

  /**
   * Gradient x input along token q is {@code d/de f(x with row q scaled by 1 + e)} at 0. The derivative is
   * taken in float64 on {@link ReferenceBertSteps} from the engine's own embedding output: Richardson's
   * central difference at h = 1e-3 has a truncation of O(h^4) and a rounding of ~1e-16 |f| / h, both far
   * below the bound. (The float32 difference this test used to take divides the forward pass's rounding,
   * ~gamma_N |f| ~ 1e-5 here, by its step: 3 eps / h ~ 4e-5 at h = 0.02, larger than the bound, and it was
   * that noise, not the gradient, that differed between CPUs.) The bound is then the engine's float32
   * backward pass alone: {@link Float32Bounds#gradient} (gamma of twice the forward chain, ~5e-5 relative)
   * of the terms' scale, sum over the row of |d f / d x_j x_j| taken from the same float64 reference.
   */
  @Test
  void gradientTimesInputIsTheDirectionalDerivativeAlongEachTokensEmbedding() {
    TinyBert tiny = TinyBert.create(2, 2, 9);
    io.headscope.model.store.ModelFiles folder = tiny.writeTo(dir.resolve("bert"));
    try (BertModel model = BertModel.load(folder)) {
      Encoding in = model.encode("the cat sat on the [MASK] .", null);
      long target = model.tokenizer().singleTokenId("cat");
      long contrast = model.tokenizer().singleTokenId("sat");
      TokenSaliency s = new TokenSaliency(model);
      Activation x = s.embeddings(in);
      ReferenceBertSteps reference = new ReferenceBertSteps(folder.config().getParent());
      int d = x.dim(2);
      double[][] x64 = new double[in.length()][d];
      for (int t = 0; t < in.length(); t++) {
        for (int j = 0; j < d; j++) {
          x64[t][j] = x.data()[t * d + j];
        }
      }
      int pos = readPosition(model, in);
      double bound = Float32Bounds.gradient(model.config(), in.length());
      for (long c : new long[] {-1, contrast}) {
        SaliencyResult gx = s.gradientTimesInput(in, SaliencyMetric.of(target, c), Baseline.ZERO);
        for (int q = 0; q < in.length(); q++) {
          int row = q;
          double fd = richardson(h -> reference64(reference, along64(x64, row, -1, h), pos, target, c), 1e-3);
          double scale = 0;
          for (int j = 0; j < d; j++) {
            int col = j;
            scale += Math.abs(richardson(h -> reference64(reference, along64(x64, row, col, h), pos, target, c),
                1e-3));
          }
          assertThat(gx.scores()[q]).as("token " + q).isCloseTo(fd, within(bound * Math.max(scale, 1e-3)));
        }
      }
    }
  }

  /** {@code (4 D(h/2) - D(h)) / 3} of the central differences {@code D}: the derivative at 0 up to O(h^4). */
  private static double richardson(java.util.function.DoubleUnaryOperator f, double h) {
    double d1 = (f.applyAsDouble(h) - f.applyAsDouble(-h)) / (2 * h);
    double d2 = (f.applyAsDouble(h / 2) - f.applyAsDouble(-h / 2)) / h;
    return (4 * d2 - d1) / 3;
  }

  /** {@code x} with row q (or only its column {@code col}, when not -1) scaled by {@code 1 + e}. */
  private static double[][] along64(double[][] x, int q, int col, double e) {
    double[][] v = new double[x.length][];
    for (int t = 0; t < x.length; t++) {
      v[t] = x[t].clone();
    }
    for (int j = 0; j < v[q].length; j++) {
      if (col < 0 || j == col) {
        v[q][j] = x[q][j] * (1 + e);
      }
    }
    return v;
  }

  private static double reference64(ReferenceBertSteps r, double[][] x, int pos, long target, long contrast) {
    double[] lp = ReferenceBertSteps.logSoftmax(r.logits(x, null)[pos]);
    return lp[(int) target] - (contrast < 0 ? 0 : lp[(int) contrast]);
  }

  private static int readPosition(BertModel model, Encoding in) {
    int pos = -1;
    for (int i = 0; i < in.length(); i++) {
      if (in.ids()[i] == model.tokenizer().maskId()) {
        pos = i;
      }
    }
    return pos;
  }

  @Test
  void gpt2GradientTimesInputIsTheDirectionalDerivative() {
    try (BertModel model = BertModel.load(FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 3))) {
      Encoding in = model.encode("the cat sat on the", null);
      long target = model.tokenizer().singleTokenId("ca");
      TokenSaliency s = new TokenSaliency(model);
      Activation x = s.embeddings(in);
      SaliencyResult gx = s.gradientTimesInput(in, SaliencyMetric.of(target, -1), Baseline.ZERO);
      for (int q = 0; q < in.length(); q++) {
        double fd = centralDifference(model, in, x, q, target, -1, 0.2);
        // float32 noise of a forward pass (~1e-6 of |f| ~ 5) over 2h bounds what the differences resolve
        assertThat(gx.scores()[q]).as("token " + q).isCloseTo(fd, within(1e-3 * Math.max(Math.abs(fd), 1e-1)));
      }
    }
  }

  @Test
  void aBatchOfPathPointsGivesEachPointsOwnGradientAsASingleBackwardPassDoes() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 2, 4).writeTo(dir.resolve("bert")))) {
      Encoding in = model.encode("the cat sat on the [MASK] .", null);
      long target = model.tokenizer().singleTokenId("cat");
      float[] x = new TokenSaliency(model).embeddings(in).data();
      int t = in.length();
      int d = model.config().hiddenSize();
      float[] rows = new float[2 * x.length];
      for (int i = 0; i < x.length; i++) {
        rows[i] = 0.3f * x[i];
        rows[x.length + i] = 0.9f * x[i];
      }
      int mask = java.util.Arrays.asList(in.tokens().toArray()).indexOf("[MASK]");
      long live = model.liveNativeArrays();
      float[] batched = model.embeddingGradients(new io.headscope.model.engine.EmbeddingGradients(in,
          new Activation(rows, new int[] {2, t, d}), new int[] {mask}, target, -1)).gradient().data();
      for (int r = 0; r < 2; r++) {
        Activation e = new Activation(java.util.Arrays.copyOfRange(rows, r * x.length, (r + 1) * x.length),
            new int[] {1, t, d});
        // the engine's own single-input loss gradient: d(-log p)/de
        float[] single = model.gradient(new io.headscope.model.engine.GradientRequest(in,
            java.util.List.of(new Intervention.Patch(HookPoint.embed(), e)), new int[] {mask}, new long[] {target},
            HookPoint.embed())).point().data();
        for (int i = 0; i < single.length; i++) {
          assertThat((double) batched[r * x.length + i]).isCloseTo(-single[i], within(1e-5));
        }
      }
      model.unembedWeights(target); // null for BERT; what it reads of GPT-2's weights is checked in DLA's test
      assertThat(model.liveNativeArrays()).as("native arrays left behind").isEqualTo(live);
    }
  }

  /**
   * d/de f(x + e x_q) at 0, x_q token q's embedding alone: central differences at h and h/2, Richardson
   * extrapolated (error O(h^4)), from forward passes only.
   */
  private static double centralDifference(BertModel model, Encoding in, Activation x, int q, long target, long c,
      double h) {
    double d1 = (metric(model, in, along(x, q, h), target, c) - metric(model, in, along(x, q, -h), target, c)) / (2 * h);
    double d2 = (metric(model, in, along(x, q, h / 2), target, c) - metric(model, in, along(x, q, -h / 2), target, c)) / h;
    return (4 * d2 - d1) / 3;
  }

  private static Activation along(Activation x, int q, double e) {
    float[] v = x.data().clone();
    int d = x.dim(2);
    for (int j = 0; j < d; j++) {
      v[q * d + j] = (float) (v[q * d + j] * (1 + e));
    }
    return new Activation(v, x.shape());
  }

  /** The metric written out again: log p(target) (minus log p(contrast)) at the first read position. */
  private static double metric(BertModel model, Encoding in, Activation e, long target, long contrast) {
    int pos = -1;
    for (int i = 0; i < in.length(); i++) {
      if (model.config().family().masked() ? in.ids()[i] == model.tokenizer().maskId() : i == in.length() - 1) {
        pos = i;
      }
    }
    float[] lp = model.run(RunRequest.of(in).intervene(new Intervention.Patch(HookPoint.embed(), e))
        .read(Readouts.none().withLogProbs(new int[] {pos}))).logProbs()[0][0];
    return lp[(int) target] - (contrast < 0 ? 0 : lp[(int) contrast]);
  }
}
