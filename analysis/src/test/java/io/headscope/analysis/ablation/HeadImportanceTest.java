package io.headscope.analysis.ablation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Gradient head importance against finite differences of the loss, on a small random BERT. */
class HeadImportanceTest {
  @TempDir static Path dir;
  static BertModel model;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(3, 4, 5).writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"the [MASK] sat on the [MASK] .", "the king was in paris and the queen was in france ."})
  void gradientMatchesFiniteDifferencesOfTheLoss(String text) {
    MlmProbe probe = MlmProbe.of(model, model.encode(text, null), 2);
    HeadImportance.Gradient g = new HeadImportance(model).gradient(probe);
    long[] targets = targets(probe);
    double intact = loss(probe, targets, 3, 4, -1, -1, 0);
    assertThat(g.loss()).isCloseTo(intact, within(1e-5));
    double eps = 1e-2;
    double largest = 0;
    for (int l = 0; l < 3; l++) {
      for (int h = 0; h < 4; h++) {
        // central difference: m_h = 1 + eps minus m_h = 1 - eps
        double fd = (loss(probe, targets, 3, 4, l, h, -eps) - loss(probe, targets, 3, 4, l, h, eps)) / (2 * eps);
        assertThat(g.dLossDm()[l][h]).as("head %d-%d", l + 1, h + 1)
            .isCloseTo(fd, within(2e-3 + 0.02 * Math.abs(fd)));
        largest = Math.max(largest, Math.abs(fd));
      }
    }
    assertThat(largest).as("the heads matter to the loss").isGreaterThan(1e-2);
  }

  @Test
  void importanceIsTheMeanAbsoluteGradientAndIsNormalisedPerLayer() {
    List<Encoding> inputs = List.of(model.encode("the cat sat on the mat .", null), model.encode("the [MASK] ran .", null));
    HeadImportance hi = new HeadImportance(model);
    ImportanceResult r = hi.run(inputs, 0, (s, f) -> {}, () -> false);
    double[][] a = hi.gradient(MlmProbe.of(model, inputs.get(0), 0)).dLossDm();
    double[][] b = hi.gradient(MlmProbe.of(model, inputs.get(1), 0)).dLossDm();
    assertThat(r.importance()[2][1]).isCloseTo((Math.abs(a[2][1]) + Math.abs(b[2][1])) / 2, within(1e-9));
    for (double[] layer : r.normalized()) {
      assertThat(Math.sqrt(Arrays.stream(layer).map(v -> v * v).sum())).isCloseTo(1.0, within(1e-9));
    }
  }

  @Test
  void noArrayOutlivesTheCall() {
    HeadImportance hi = new HeadImportance(model);
    MlmProbe probe = MlmProbe.of(model, model.encode("the cat sat on the mat .", null), 0);
    hi.gradient(probe); // warm-up: anything created once and kept would show here
    long before = model.liveNativeArrays();
    for (int i = 0; i < 5; i++) {
      hi.gradient(probe);
    }
    assertThat(model.liveNativeArrays()).isEqualTo(before);
    // the plain forward pass too (its embedding lookups once left the whole pass in the weights' manager)
    model.trace(probe.input());
    assertThat(model.liveNativeArrays()).isEqualTo(before);
  }

  private long[] targets(MlmProbe probe) {
    if (probe.kind() == MlmProbe.Kind.SAMPLED) {
      return probe.originals();
    }
    return AblationSweep.argMax(logProbs(probe, null));
  }

  /** The masked-LM loss with head (l, h)'s multiplier at {@code 1 - eps}, by a plain forward pass. */
  private double loss(MlmProbe probe, long[] targets, int layers, int heads, int l, int h, double eps) {
    float[][] m = new float[layers][heads];
    for (float[] row : m) {
      Arrays.fill(row, 1f);
    }
    if (l >= 0) {
      m[l][h] = (float) (1 - eps);
    }
    float[][] lp = logProbs(probe, m);
    double sum = 0;
    for (int i = 0; i < targets.length; i++) {
      sum -= lp[i][(int) targets[i]];
    }
    return sum / targets.length;
  }

  /** Log-probabilities at the probe's positions, {@code [position][vocab]}, with these head multipliers. */
  private float[][] logProbs(MlmProbe probe, float[][] multipliers) {
    RunRequest r = RunRequest.of(probe.input()).read(Readouts.none().withLogProbs(probe.positions()));
    if (multipliers != null) {
      r = r.intervene(new Intervention.HeadMasks(new float[][][] {multipliers}, HeadMask.Mode.ZERO));
    }
    return model.run(r).logProbs()[0];
  }
}
