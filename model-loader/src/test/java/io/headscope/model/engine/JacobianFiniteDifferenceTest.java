package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exact Jacobian norms against central finite differences of the same layer: h^(l-1) is perturbed
 * through an {@link Intervention.Edit} at {@code blocks.l.hook_resid_pre}, one coordinate (i, a) per
 * batch row and sign, and {@code hook_resid_post} is read. No autograd is involved on that side.
 */
class JacobianFiniteDifferenceTest {
  @TempDir static Path dir;

  /**
   * Step and tolerance in float32. The step's truncation error is {@code eps^2 |f'''| / 6}, about 1e-5
   * per entry for the O(1)-curvature layers of this model; the rounding error of the difference is about
   * {@code 2 u |y| / (2 eps)} with u = 6e-8 and |y| <= sqrt(d) = 4 after the LayerNorm, so 2.4e-5 per
   * entry, and the float32 forward pass itself differs from exact arithmetic by a few ulps of its
   * intermediates (~1e-6), divided by 2 eps: 5e-5. Over a 16 x 16 block these add up to at most
   * 16 * 1e-4 = 1.6e-3 in the Frobenius norm; the tolerance is that, plus 1% of the norm.
   */
  static final float EPS = 1e-2f;
  static final double ABS_TOL = 1.6e-3;
  static final double REL_TOL = 1e-2;

  static Stream<Arguments> masks() {
    return Stream.of(
        Arguments.of("intact", HeadMask.NONE),
        Arguments.of("head 2-3 off, zero", HeadMask.of(Set.of(new Head(1, 2)), HeadMask.Mode.ZERO)),
        Arguments.of("head 1-1 off, uniform", HeadMask.of(Set.of(new Head(0, 0)), HeadMask.Mode.UNIFORM)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("masks")
  void exactNormsMatchCentralDifferences(String name, HeadMask mask) {
    try (BertModel model = BertModel.load(TinyBert.create(2, 4, 21).writeTo(dir.resolve(name.replace(' ', '_'))))) {
      Encoding e = model.encode("the cat sat on the mat .", null);
      int n = e.length();
      JacobianResult exact = model.jacobian(e, mask, 0, 0, p -> { }, () -> false);
      assertThat(exact.samples()).isZero();
      for (int l = 0; l < 2; l++) {
        double[][] fd = finiteDifferences(model, e, mask, l);
        double worst = 0;
        for (int j = 0; j < n; j++) {
          for (int i = 0; i < n; i++) {
            double got = Math.sqrt(exact.squaredNorms()[l][j][i]);
            double want = Math.sqrt(fd[j][i]);
            worst = Math.max(worst, Math.abs(got - want));
            assertThat(Math.abs(got - want)).as("layer %d, J[%d][%d]: exact %f, differences %f", l + 1, j, i, got, want)
                .isLessThanOrEqualTo(ABS_TOL + REL_TOL * want);
          }
        }
        // the attention does mix tokens: an all-diagonal J would make the test blind to the off-diagonal blocks
        assertThat(fd[0][n - 1]).as("an off-diagonal block is not zero").isGreaterThan(1e-4);
        System.out.printf("layer %d (%s): largest |exact - differences| %.2e%n", l + 1, name, worst);
      }
    }
  }

  /** {@code ||d h^l_j / d h^(l-1)_i||_F^2} by central differences, all (i, a) in one batch of 2 n d rows. */
  static double[][] finiteDifferences(BertModel model, Encoding e, HeadMask mask, int l) {
    int n = e.length();
    int d = model.config().hiddenSize();
    int rows = 2 * n * d;
    Intervention.Edit nudge = new Intervention.Edit(HookPoint.residPre(l), a -> {
      float[] v = a.data().clone();
      for (int r = 0; r < rows; r++) {
        int col = r / 2; // the input coordinate (i, a) = (col / d, col % d)
        v[(r * n + col / d) * d + col % d] += r % 2 == 0 ? EPS : -EPS;
      }
      return new Activation(v, a.shape());
    });
    RunResult out = model.run(RunRequest.of(Collections.nCopies(rows, e))
        .intervene(Intervention.heads(mask, model.config()))
        .intervene(nudge)
        .capture(Capture.points(HookPoint.Kind.RESID_POST).atLayers(l))
        .stoppingBefore(l + 1));
    Activation y = out.cache().get(HookPoint.residPost(l)); // (rows, n, d)
    double[][] s = new double[n][n];
    for (int col = 0; col < n * d; col++) {
      int i = col / d;
      for (int j = 0; j < n; j++) {
        for (int c = 0; c < d; c++) {
          double plus = y.get(2 * col, j, c);
          double minus = y.get(2 * col + 1, j, c);
          double dy = (plus - minus) / (2.0 * EPS);
          s[j][i] += dy * dy;
        }
      }
    }
    return s;
  }
}
