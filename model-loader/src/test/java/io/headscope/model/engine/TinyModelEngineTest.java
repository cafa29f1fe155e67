package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.MaskPrediction;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The forward pass and head masks on a small random BERT the test writes itself. */
class TinyModelEngineTest {
  @TempDir static Path dir;
  static TinyBert tiny;
  static BertModel model;

  @BeforeAll
  static void load() {
    tiny = TinyBert.create(3, 4, 42);
    model = BertModel.load(tiny.writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @Test
  void everyMapIsSquareAndItsRowsSumToOne() {
    AttentionTrace t = model.trace(model.encode("the cat sat on the mat.", null));
    int n = t.tokens().size();
    assertThat(t.tokens()).startsWith("[CLS]").endsWith("[SEP]");
    assertThat(t.attention().length).isEqualTo(3);
    assertThat(t.attention()[0].length).isEqualTo(4);
    for (float[][][] layer : t.attention()) {
      for (float[][] map : layer) {
        assertThat(map).hasDimensions(n, n);
        for (float[] row : map) {
          double sum = 0;
          for (float v : row) {
            assertThat(v).isBetween(0f, 1f);
            sum += v;
          }
          assertThat(sum).isCloseTo(1.0, within(1e-5));
        }
      }
    }
    assertThat(t.valueNorms()[0][0]).hasSize(n);
    assertThat(t.hiddenStates()).hasDimensions(n, tiny.config().hiddenSize());
  }

  @Test
  void batchOfDifferentLengthsGivesTheMapsOfEachInputAlone() {
    List<Encoding> inputs = List.of(
        model.encode("the cat sat on the mat and the dog ran to the house.", null),
        model.encode("hello world", null),
        model.encode("the king was in paris.", "the queen was in france."));
    List<AttentionTrace> batch = model.trace(TraceRequest.of(inputs).top(3));
    for (int i = 0; i < inputs.size(); i++) {
      AttentionTrace alone = model.trace(inputs.get(i));
      // equal up to float32 rounding: GEMMs of different shapes block their sums differently
      assertClose(batch.get(i).attention(), alone.attention(), 5e-6);
      assertClose(batch.get(i).valueNorms(), alone.valueNorms(), 1e-5);
      assertClose(batch.get(i).hiddenStates(), alone.hiddenStates(), 1e-5);
    }
  }

  @Test
  void zeroModeEqualsRemovingTheHeadsSliceFromTheOutputProjection() {
    Head off = new Head(1, 2);
    Encoding input = model.encode("the [MASK] sat on the mat.", null);
    AttentionTrace masked = model.trace(TraceRequest.of(input).mask(HeadMask.of(Set.of(off), HeadMask.Mode.ZERO)))
        .get(0);

    int d = tiny.config().hiddenSize();
    int dh = tiny.config().headSize();
    TinyBert cut = TinyBert.create(3, 4, 42)
        .edit("encoder.layer.1.attention.output.dense.weight", w -> {
          for (int row = 0; row < d; row++) { // weight is (out, in): zero the head's input columns
            for (int col = off.head() * dh; col < (off.head() + 1) * dh; col++) {
              w[row * d + col] = 0f;
            }
          }
        });
    try (BertModel surgery = BertModel.load(cut.writeTo(dir.resolve("cut")))) {
      AttentionTrace expected = surgery.trace(input);
      assertClose(masked.hiddenStates(), expected.hiddenStates(), 1e-5);
      MaskPrediction a = masked.predictions().get(0);
      MaskPrediction b = expected.predictions().get(0);
      for (int v = 0; v < a.probabilities().length; v++) {
        assertThat(a.probabilities()[v]).isCloseTo(b.probabilities()[v], within(1e-6f));
      }
    }
    // and the effect is real: the unmasked model differs
    assertThat(maxDiff(model.trace(input).hiddenStates(), masked.hiddenStates())).isGreaterThan(1e-3);
  }

  @Test
  void mapsAreCapturedBeforeTheMaskButLaterLayersFeelIt() {
    Encoding input = model.encode("the cat sat on the mat.", null);
    AttentionTrace plain = model.trace(input);
    AttentionTrace masked = model.trace(TraceRequest.of(input)
        .mask(HeadMask.of(Set.of(new Head(1, 0)), HeadMask.Mode.UNIFORM))).get(0);
    assertClose(masked.attention()[0], plain.attention()[0], 0); // below: untouched
    assertClose(masked.attention()[1], plain.attention()[1], 0); // the masked layer: shown as it would be
    assertThat(maxDiff(masked.attention()[2][0], plain.attention()[2][0])).isGreaterThan(1e-4);
  }

  @Test
  void uniformModeGivesEveryQueryTheMeanValue() {
    int layer = 2;
    int head = 3;
    int dh = tiny.config().headSize();
    Encoding input = model.encode("hello world, the dog ran.", null);
    RunResult r = model.run(RunRequest.of(input)
        .intervene(Intervention.heads(HeadMask.of(Set.of(new Head(layer, head)), HeadMask.Mode.UNIFORM), tiny.config()))
        .capture(Capture.points(HookPoint.Kind.ATTN_V, HookPoint.Kind.ATTN_Z).atLayers(layer)));
    float[][][] v = {r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_V, layer)).matrix(input.length(), dh, 0, head)};
    float[][][] z = {r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_Z, layer)).matrix(input.length(), dh, 0, head)};
    int n = input.length();
    for (int k = 0; k < dh; k++) {
      double mean = 0;
      for (int j = 0; j < n; j++) {
        mean += v[0][j][k] / n;
      }
      for (int i = 0; i < n; i++) {
        assertThat((double) z[0][i][k]).isCloseTo(mean, within(1e-5));
      }
    }
  }

  @Test
  void maskingNoHeadChangesNothing() {
    Encoding input = model.encode("the [MASK] was red.", null);
    AttentionTrace plain = model.trace(input);
    AttentionTrace empty = model.trace(TraceRequest.of(input).mask(HeadMask.of(Set.of(), HeadMask.Mode.UNIFORM)))
        .get(0);
    assertClose(empty.attention(), plain.attention(), 0);
    assertClose(empty.hiddenStates(), plain.hiddenStates(), 0);
  }

  @Test
  void aWholeLayerOffIsAllItsHeads() {
    Encoding input = model.encode("the [MASK] was red.", null);
    var layer = Head.parseList("2", 3, 4);
    assertThat(layer).hasSize(4);
    AttentionTrace viaLayer = model.trace(TraceRequest.of(input).mask(HeadMask.of(layer, HeadMask.Mode.ZERO))).get(0);
    AttentionTrace viaHeads = model.trace(TraceRequest.of(input)
        .mask(HeadMask.of(Head.parseList("2-1,2-2,2-3,2-4", 3, 4), HeadMask.Mode.ZERO))).get(0);
    assertClose(viaLayer.hiddenStates(), viaHeads.hiddenStates(), 0);
  }

  static float[][] rows(float[] flat, int width) {
    float[][] out = new float[flat.length / width][width];
    for (int i = 0; i < out.length; i++) {
      System.arraycopy(flat, i * width, out[i], 0, width);
    }
    return out;
  }

  static double maxDiff(Object a, Object b) {
    if (a instanceof float[] x) {
      float[] y = (float[]) b;
      assertThat(x).hasSameSizeAs(y);
      double m = 0;
      for (int i = 0; i < x.length; i++) {
        m = Math.max(m, Math.abs(x[i] - y[i]));
      }
      return m;
    }
    Object[] x = (Object[]) a;
    Object[] y = (Object[]) b;
    assertThat(x).hasSameSizeAs(y);
    double m = 0;
    for (int i = 0; i < x.length; i++) {
      m = Math.max(m, maxDiff(x[i], y[i]));
    }
    return m;
  }

  static void assertClose(Object a, Object b, double tolerance) {
    assertThat(maxDiff(a, b)).isLessThanOrEqualTo(tolerance);
  }
}
