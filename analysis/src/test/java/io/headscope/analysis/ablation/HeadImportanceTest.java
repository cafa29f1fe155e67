package io.headscope.analysis.ablation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.Float32Bounds;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.ReferenceBertSteps;
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
  static ReferenceBertSteps reference;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(3, 4, 5).writeTo(dir.resolve("tiny")));
    reference = new ReferenceBertSteps(dir.resolve("tiny"));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  /**
   * The engine's float32 gradient in each head's multiplier against the derivative of the same loss taken
   * in float64 ({@link ReferenceBertSteps#headMultiplierDerivative}: the head's result scaled, Richardson's
   * differences, no float32 rounding divided by a step). The bound is the float32 backward pass's alone,
   * {@link Float32Bounds#gradient} of the terms' scale (the sum of |d loss / d result * result| over the
   * head's entries, from the same float64 reference), so it holds on any CPU; the loss itself within
   * {@link Float32Bounds#forward} of its float64 value, relative to a scale of at least 1 (a loss sums
   * log-probabilities of order 1).
   */
  @ParameterizedTest
  @ValueSource(strings = {"the [MASK] sat on the [MASK] .", "the king was in paris and the queen was in france ."})
  void gradientMatchesTheFloat64DerivativeOfTheLoss(String text) {
    MlmProbe probe = MlmProbe.of(model, model.encode(text, null), 2);
    HeadImportance.Gradient g = new HeadImportance(model).gradient(probe);
    long[] targets = targets(probe);
    double[][] x = reference.embeddings(probe.input().ids(), probe.input().segments());
    int tokens = x.length;
    java.util.function.ToDoubleFunction<ReferenceBertSteps.ResultEdit> loss = edit -> {
      double[][] logits = reference.logitsFrom(0, x, edit, probe.positions());
      double sum = 0;
      for (int i = 0; i < targets.length; i++) {
        sum -= ReferenceBertSteps.logSoftmax(logits[i])[(int) targets[i]];
      }
      return sum / targets.length;
    };
    double intact = loss.applyAsDouble(null);
    assertThat(g.loss()).isCloseTo(intact,
        within(Float32Bounds.forward(model.config(), tokens) * Math.max(1, Math.abs(intact))));
    double bound = Float32Bounds.gradient(model.config(), tokens);
    double largest = 0;
    for (int l = 0; l < 3; l++) {
      for (int h = 0; h < 4; h++) {
        double[] d = ReferenceBertSteps.headMultiplierDerivative(loss, l, h, tokens, model.config().hiddenSize());
        assertThat(g.dLossDm()[l][h]).as("head %d-%d", l + 1, h + 1)
            .isCloseTo(d[0], within(bound * Math.max(d[1], 1e-3)));
        largest = Math.max(largest, Math.abs(d[0]));
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

  /** Log-probabilities at the probe's positions, {@code [position][vocab]}, with these head multipliers. */
  private float[][] logProbs(MlmProbe probe, float[][] multipliers) {
    RunRequest r = RunRequest.of(probe.input()).read(Readouts.none().withLogProbs(probe.positions()));
    if (multipliers != null) {
      r = r.intervene(new Intervention.HeadMasks(new float[][][] {multipliers}, HeadMask.Mode.ZERO));
    }
    return model.run(r).logProbs()[0];
  }
}
