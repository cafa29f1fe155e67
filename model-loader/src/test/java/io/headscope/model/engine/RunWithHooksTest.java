package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.Float32Bounds;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.ReferenceBertSteps;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The entry point's contract on a small random BERT: every point carries what its definition says
 * (checked by recomputing it in Java from its neighbours), captures and interventions hold for one
 * call, and partial runs equal the whole pass.
 */
class RunWithHooksTest {
  @TempDir static Path dir;
  static TinyBert tiny;
  static BertModel model;
  static final int L = 3;
  static final int H = 4;

  @BeforeAll
  static void load() {
    tiny = TinyBert.create(L, H, 7);
    model = BertModel.load(tiny.writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  private static Encoding input() {
    return model.encode("the cat sat on the mat.", null);
  }

  /** Every point, each head's result included (which sums the heads in another order: see below). */
  private static RunResult captureAll(Encoding e) {
    return model.run(RunRequest.of(e).capture(Capture.points(HookPoint.Kind.values())));
  }

  /** Every point but {@code attn.hook_result}: the plain pass, bit for bit. */
  private static ActivationCache plainPass(Encoding e) {
    java.util.EnumSet<HookPoint.Kind> kinds = java.util.EnumSet.allOf(HookPoint.Kind.class);
    kinds.remove(HookPoint.Kind.ATTN_RESULT);
    return model.run(RunRequest.of(e).capture(Capture.points(kinds.toArray(HookPoint.Kind[]::new)))).cache();
  }

  @Test
  void theResidualStreamLinksLayersAndTheEnds() {
    ActivationCache c = plainPass(input());
    assertThat(c.get(HookPoint.residPre(0))).isEqualTo(c.get(HookPoint.embed()));
    for (int l = 0; l + 1 < L; l++) {
      assertThat(c.get(HookPoint.residPre(l + 1))).isEqualTo(c.get(HookPoint.residPost(l)));
    }
    assertThat(c.get(HookPoint.fin())).isEqualTo(c.get(HookPoint.residPost(L - 1)));
  }

  @Test
  void everyPointHasItsDocumentedShape() {
    Encoding e = input();
    int t = e.length();
    int d = tiny.config().hiddenSize();
    int dh = tiny.config().headSize();
    int f = tiny.config().intermediateSize();
    ActivationCache c = captureAll(e).cache();
    assertThat(c.points()).hasSize(HookPoint.all(tiny.config()).size());
    for (HookPoint p : HookPoint.all(tiny.config())) {
      int[] expected = switch (p.kind()) {
        case EMBED, RESID_PRE, ATTN_OUT, RESID_MID, MLP_OUT, RESID_POST, FINAL -> new int[] {1, t, d};
        case ATTN_Q, ATTN_K, ATTN_V, ATTN_Z -> new int[] {1, H, t, dh};
        case ATTN_SCORES, ATTN_PATTERN -> new int[] {1, H, t, t};
        case ATTN_RESULT -> new int[] {1, t, H, d};
        case MLP_PRE, MLP_POST -> new int[] {1, t, f};
        case CROSS_ATTN_Q, CROSS_ATTN_K, CROSS_ATTN_V, CROSS_ATTN_SCORES, CROSS_ATTN_PATTERN, CROSS_ATTN_Z,
            CROSS_ATTN_OUT, RESID_MID_CROSS -> throw new AssertionError(p + ": an encoder-decoder's point in a single-stack model");
      };
      assertThat(c.get(p).shape()).as(p.name()).containsExactly(expected);
    }
  }

  @Test
  void patternIsTheSoftmaxOfTheScoresAndZIsPatternTimesValues() {
    Encoding e = input();
    int t = e.length();
    int dh = tiny.config().headSize();
    ActivationCache c = captureAll(e).cache();
    for (int l = 0; l < L; l++) {
      for (int h = 0; h < H; h++) {
        float[][] s = c.get(HookPoint.of(HookPoint.Kind.ATTN_SCORES, l)).matrix(t, t, 0, h);
        float[][] a = c.get(HookPoint.pattern(l)).matrix(t, t, 0, h);
        float[][] v = c.get(HookPoint.of(HookPoint.Kind.ATTN_V, l)).matrix(t, dh, 0, h);
        float[][] z = c.get(HookPoint.of(HookPoint.Kind.ATTN_Z, l)).matrix(t, dh, 0, h);
        for (int i = 0; i < t; i++) {
          double max = Double.NEGATIVE_INFINITY;
          for (float x : s[i]) {
            max = Math.max(max, x);
          }
          double sum = 0;
          for (float x : s[i]) {
            sum += Math.exp(x - max);
          }
          for (int j = 0; j < t; j++) {
            assertThat((double) a[i][j]).isCloseTo(Math.exp(s[i][j] - max) / sum, within(1e-6));
          }
          for (int k = 0; k < dh; k++) {
            double zz = 0;
            for (int j = 0; j < t; j++) {
              zz += a[i][j] * v[j][k];
            }
            assertThat((double) z[i][k]).isCloseTo(zz, within(1e-5));
          }
        }
      }
    }
  }

  @Test
  void scoresAreQueryKeyProductsOverRootDh() {
    Encoding e = input();
    int t = e.length();
    int dh = tiny.config().headSize();
    ActivationCache c = captureAll(e).cache();
    float[][] q = c.get(HookPoint.of(HookPoint.Kind.ATTN_Q, 1)).matrix(t, dh, 0, 2);
    float[][] k = c.get(HookPoint.of(HookPoint.Kind.ATTN_K, 1)).matrix(t, dh, 0, 2);
    float[][] s = c.get(HookPoint.of(HookPoint.Kind.ATTN_SCORES, 1)).matrix(t, t, 0, 2);
    for (int i = 0; i < t; i++) {
      for (int j = 0; j < t; j++) {
        double dot = 0;
        for (int x = 0; x < dh; x++) {
          dot += q[i][x] * k[j][x];
        }
        assertThat((double) s[i][j]).isCloseTo(dot / Math.sqrt(dh), within(1e-5));
      }
    }
  }

  @Test
  void headResultsSumToTheAttentionOutputAndMlpPostIsGeluOfPre() {
    Encoding e = input();
    int t = e.length();
    int d = tiny.config().hiddenSize();
    int f = tiny.config().intermediateSize();
    ActivationCache c = captureAll(e).cache();
    for (int l = 0; l < L; l++) {
      float[] bias = tiny.tensor("encoder.layer." + l + ".attention.output.dense.bias");
      Activation result = c.get(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l));
      Activation out = c.get(HookPoint.of(HookPoint.Kind.ATTN_OUT, l));
      for (int i = 0; i < t; i++) {
        for (int o = 0; o < d; o++) {
          double sum = bias[o];
          for (int h = 0; h < H; h++) {
            sum += result.get(0, i, h, o);
          }
          assertThat((double) out.get(0, i, o)).isCloseTo(sum, within(1e-5));
        }
      }
      Activation pre = c.get(HookPoint.of(HookPoint.Kind.MLP_PRE, l));
      Activation post = c.get(HookPoint.of(HookPoint.Kind.MLP_POST, l));
      for (int i = 0; i < t; i++) {
        for (int o = 0; o < f; o++) {
          double x = pre.get(0, i, o);
          double gelu = 0.5 * x * (1 + erf(x / Math.sqrt(2))); // the config's erf GELU
          assertThat((double) post.get(0, i, o)).isCloseTo(gelu, within(1e-5));
        }
      }
    }
  }

  @Test
  void lookingAtEachHeadsResultDoesNotChangeTheOutputBeyondRounding() {
    Encoding e = input();
    Activation plain = model.run(RunRequest.of(e).capture(Capture.points(HookPoint.Kind.FINAL))).cache().get(HookPoint.fin());
    Activation withResult = model.run(RunRequest.of(e).capture(Capture.points(HookPoint.Kind.ATTN_RESULT, HookPoint.Kind.FINAL)))
        .cache().get(HookPoint.fin());
    assertClose(withResult, plain, 1e-5);
  }

  @Test
  void captureBeforeSeesTheHeadsOwnMapAndAfterSeesTheMaskedOne() {
    Encoding e = input();
    int t = e.length();
    RunResult r = model.run(RunRequest.of(e)
        .intervene(Intervention.heads(HeadMask.of(Set.of(new Head(1, 2)), HeadMask.Mode.ZERO), tiny.config()))
        .capture(Capture.points(HookPoint.Kind.ATTN_PATTERN).atLayers(1).beforeInterventions())
        .capture(Capture.points(HookPoint.Kind.ATTN_PATTERN).atLayers(1)));
    float[][] before = r.cache().get(HookPoint.pattern(1), Capture.Stage.BEFORE_INTERVENTIONS).matrix(t, t, 0, 2);
    float[][] after = r.cache().get(HookPoint.pattern(1), Capture.Stage.AFTER_INTERVENTIONS).matrix(t, t, 0, 2);
    float[][] otherAfter = r.cache().get(HookPoint.pattern(1), Capture.Stage.AFTER_INTERVENTIONS).matrix(t, t, 0, 1);
    float[][] otherBefore = r.cache().get(HookPoint.pattern(1), Capture.Stage.BEFORE_INTERVENTIONS).matrix(t, t, 0, 1);
    double rowSum = 0;
    for (int j = 0; j < t; j++) {
      rowSum += before[0][j];
      assertThat(after[0][j]).isZero();
    }
    assertThat(rowSum).isCloseTo(1.0, within(1e-5));
    assertThat(otherAfter).isDeepEqualTo(otherBefore);
    // a filter keeps only what it names
    assertThat(r.cache().has(HookPoint.pattern(0))).isFalse();
    assertThatThrownBy(() -> r.cache().get(HookPoint.pattern(0))).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("blocks.0.attn.hook_pattern");
  }

  @Test
  void patchingTheWholeStreamFromAnotherRunGivesThatRunsOutput() {
    Encoding a = model.encode("the cat sat on the mat.", null);
    Encoding b = model.encode("a dog ran in the city!", null);
    assertThat(a.length()).isEqualTo(b.length());
    ActivationCache cb = plainPass(b);
    // position and token embeddings differ, but from layer 1 on only the stream carries the input
    Activation patched = model.run(RunRequest.of(a)
        .intervene(new Intervention.Patch(HookPoint.residPre(1), cb.get(HookPoint.residPre(1))))
        .capture(Capture.points(HookPoint.Kind.FINAL))).cache().get(HookPoint.fin());
    assertThat(patched).isEqualTo(cb.get(HookPoint.fin()));
  }

  @Test
  void aJavaEditActsLikeThePatchOfItsResult() {
    Encoding e = input();
    ActivationCache c = plainPass(e);
    Activation mid = c.get(HookPoint.of(HookPoint.Kind.RESID_MID, 0));
    float[] halved = mid.data().clone();
    for (int i = 0; i < halved.length; i++) {
      halved[i] *= 0.5f;
    }
    Activation target = new Activation(halved, mid.shape());
    HookPoint p = HookPoint.of(HookPoint.Kind.RESID_MID, 0);
    Activation viaEdit = model.run(RunRequest.of(e).intervene(new Intervention.Edit(p, a -> target))
        .capture(Capture.points(HookPoint.Kind.FINAL))).cache().get(HookPoint.fin());
    Activation viaPatch = model.run(RunRequest.of(e).intervene(new Intervention.Patch(p, target))
        .capture(Capture.points(HookPoint.Kind.FINAL))).cache().get(HookPoint.fin());
    assertThat(viaEdit).isEqualTo(viaPatch); // both enter as new arrays: the very same floats
    assertThat(maxDiff(viaEdit, c.get(HookPoint.fin()))).isGreaterThan(1e-3);
    Activation identity = model.run(RunRequest.of(e).intervene(new Intervention.Edit(p, a -> a))
        .capture(Capture.points(HookPoint.Kind.FINAL))).cache().get(HookPoint.fin());
    assertThat(identity).isEqualTo(c.get(HookPoint.fin()));
  }

  @Test
  void aPatchOfTheWrongShapeIsRefused() {
    Encoding e = input();
    assertThatThrownBy(() -> model.run(RunRequest.of(e)
        .intervene(new Intervention.Patch(HookPoint.residPre(1), new Activation(new float[4], new int[] {1, 2, 2})))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blocks.1.hook_resid_pre");
  }

  @Test
  void noInterventionSurvivesItsCall() {
    Encoding e = input();
    Activation plain = plainPass(e).get(HookPoint.fin());
    model.run(RunRequest.of(e).intervene(Intervention.heads(
        HeadMask.of(Head.parseList("1,2", L, H), HeadMask.Mode.UNIFORM), tiny.config())));
    assertThat(plainPass(e).get(HookPoint.fin())).isEqualTo(plain);
  }

  @Test
  void aRunFromLayerIOnItsInputEqualsTheWholePassAndAStoppedRunEqualsItsLowerPart() {
    Encoding e = input();
    ActivationCache whole = plainPass(e);
    for (int l = 0; l < L; l++) {
      Activation fin = model.run(RunRequest.of(e).startingAt(l, whole.get(HookPoint.residPre(l)))
          .capture(Capture.points(HookPoint.Kind.FINAL))).cache().get(HookPoint.fin());
      assertThat(fin).as("from layer %d", l).isEqualTo(whole.get(HookPoint.fin()));
    }
    RunResult lower = model.run(RunRequest.of(e).stoppingBefore(2).capture(Capture.points(HookPoint.Kind.RESID_POST)));
    assertThat(lower.cache().get(HookPoint.residPost(1))).isEqualTo(whole.get(HookPoint.residPost(1)));
    assertThat(lower.cache().has(HookPoint.residPost(2))).isFalse();
    assertThatThrownBy(() -> model.run(RunRequest.of(e).stoppingBefore(2).read(Readouts.none().withClassifier())))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void repeatingALayerIsARunThatStartsOnItsOwnOutput() {
    // layer compatibility (issue 16) feeds the output of layer i into layer j: here layer 1 twice
    Encoding e = input();
    ActivationCache whole = plainPass(e);
    Activation again = model.run(RunRequest.of(e).startingAt(1, whole.get(HookPoint.residPost(1)))
        .stoppingBefore(2).capture(Capture.points(HookPoint.Kind.RESID_POST))).cache().get(HookPoint.residPost(1));
    assertThat(maxDiff(again, whole.get(HookPoint.residPost(1)))).isGreaterThan(1e-3);
  }

  /**
   * The engine's float32 gradient at layer 3's input against the derivative of the same loss taken in
   * float64 from the engine's own captured input ({@link ReferenceBertSteps#logitsFrom}, Richardson's
   * differences: no float32 rounding divided by a step). The bound is the float32 backward pass's,
   * {@link Float32Bounds#gradient}, of the entry's scale: LayerNorm's backward writes each entry of a row's
   * gradient from sums over the whole row, so the scale is that row's sum of |d loss / d x_j| (from the same
   * float64 reference). The loss within {@link Float32Bounds#forward} of its float64 value (scale at least 1).
   */
  @Test
  void gradientAtAPointMatchesTheFloat64DerivativeOfTheLoss() {
    Encoding e = model.encode("the [MASK] sat on the mat.", null);
    int[] positions = {2};
    GradientResult g = model.gradient(new GradientRequest(e, List.of(), positions, null, HookPoint.residPre(2)));
    ActivationCache c = plainPass(e);
    Activation x = c.get(HookPoint.residPre(2));
    assertThat(g.point().shape()).containsExactly(x.shape());
    ReferenceBertSteps reference = new ReferenceBertSteps(dir.resolve("tiny"));
    int t = x.dim(1);
    int d = x.dim(2);
    double[][] x64 = new double[t][d];
    for (int i = 0; i < t; i++) {
      for (int j = 0; j < d; j++) {
        x64[i][j] = x.get(0, i, j);
      }
    }
    long[] targets = g.targets();
    java.util.function.BiFunction<int[], Double, Double> loss = (idx, eps) -> {
      double[][] moved = new double[t][];
      for (int i = 0; i < t; i++) {
        moved[i] = x64[i].clone();
      }
      if (idx != null) {
        moved[idx[1]][idx[2]] += eps;
      }
      double[][] logits = reference.logitsFrom(2, moved, null, positions);
      double sum = 0;
      for (int i = 0; i < positions.length; i++) {
        sum -= ReferenceBertSteps.logSoftmax(logits[i])[(int) targets[i]];
      }
      return sum / positions.length;
    };
    double intact = loss.apply(null, 0.0);
    assertThat(g.loss()).isCloseTo(intact, within(Float32Bounds.forward(model.config(), t) * Math.max(1, intact)));
    double bound = Float32Bounds.gradient(model.config(), t);
    double largest = 0;
    for (int[] idx : new int[][] {{0, 2, 0}, {0, 2, 5}, {0, 1, 3}, {0, 4, 11}, {0, 0, 7}}) {
      double fd = ReferenceBertSteps.richardson(eps -> loss.apply(idx, eps), 1e-3);
      double scale = 0;
      for (int j = 0; j < d; j++) {
        int[] other = {0, idx[1], j};
        scale += Math.abs(ReferenceBertSteps.richardson(eps -> loss.apply(other, eps), 1e-3));
      }
      assertThat((double) g.point().get(idx)).as("d loss / d x%s", java.util.Arrays.toString(idx))
          .isCloseTo(fd, within(bound * Math.max(scale, 1e-3)));
      largest = Math.max(largest, Math.abs(fd));
    }
    assertThat(largest).as("the stream matters to the loss").isGreaterThan(1e-2);
  }

  @Test
  void derivedQuantitiesFollowTheMaskedPattern() {
    Encoding e = input();
    int t = e.length();
    HeadMask mask = HeadMask.of(Set.of(new Head(0, 0), new Head(0, 1), new Head(0, 2), new Head(0, 3)), HeadMask.Mode.ZERO);
    float[][] layer0 = model.layerNormMaps(List.of(e), mask).get(0)[0];
    for (int i = 0; i < t; i++) {
      for (int j = 0; j < t; j++) {
        assertThat(layer0[i][j]).as("every head of layer 1 off: nothing moves").isZero();
      }
    }
  }

  static double erf(double x) {
    // Abramowitz-Stegun 7.1.26 is too coarse here: integrate exp(-t^2) by Simpson's rule instead
    int n = 2000;
    double h = x / n;
    double sum = 1 + Math.exp(-x * x);
    for (int i = 1; i < n; i++) {
      double t = i * h;
      sum += (i % 2 == 1 ? 4 : 2) * Math.exp(-t * t);
    }
    return 2 / Math.sqrt(Math.PI) * sum * h / 3;
  }

  static double maxDiff(Activation a, Activation b) {
    assertThat(a.shape()).containsExactly(b.shape());
    double m = 0;
    for (int i = 0; i < a.data().length; i++) {
      m = Math.max(m, Math.abs(a.data()[i] - b.data()[i]));
    }
    return m;
  }

  static void assertClose(Activation a, Activation b, double tol) {
    assertThat(maxDiff(a, b)).isLessThanOrEqualTo(tol);
  }
}
