package io.headscope.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.testing.Cpu;
import io.headscope.model.testing.FullModel;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * An input's numbers do not depend on how it is batched with inputs of its length: alone, at any place
 * in a batch, in a batch big enough for other product kernels (over 256 token rows). Compared bit for
 * bit where the engine measures its products as batch-invariant ({@link BertModel#batchInvariant}: an
 * Intel CPU with MKL in strict mode); elsewhere (an AMD CPU, where MKL has no strict mode, or MKL in its
 * default mode: {@code -Dheadscope.mklCbwr=OFF} runs this class so on any CPU) to float rounding, and the
 * sweeps' fallback is tested in AblationSweepTest. Padded among longer inputs, an input agrees to float
 * rounding only, on every CPU.
 */
@DisabledIfSystemProperty(named = "headscope.skipFullModel", matches = "true")
@Tag("full-model")
class BatchInvarianceTest {
  private static final String[] OTHERS = {
    "a dog .",
    "the committee postponed its decision until the report on the bridge had been read by every member .",
    "she said that [MASK] would come back tomorrow , but nobody believed her .",
    "numbers like 3.14 and words like naïve are split into wordpieces .",
  };

  @Test
  @EnabledOnOs(value = OS.LINUX, architectures = "amd64")
  void onAnIntelCpuWithAvx2MklsStrictModeMakesTheProductsBatchInvariant() {
    // MKL's documented guarantee, checked where it applies: strict mode exists for its AVX2 and AVX-512
    // branches on Intel CPUs only; on an AMD CPU the engine measures no invariance and the sweeps fall back
    assumeTrue(Cpu.isIntelWithAvx2(), "MKL's strict mode applies to Intel CPUs with AVX2 only: " + Cpu.describe());
    String mode = System.getenv("MKL_CBWR");
    assumeTrue(mode != null && mode.toUpperCase(java.util.Locale.ROOT).contains("STRICT"),
        "MKL_CBWR=" + mode + " (the suite sets AUTO,STRICT unless -Dheadscope.mklCbwr says otherwise)");
    assertThat(FullModel.uncased().batchInvariant()).as("MKL_CBWR=%s on %s", mode, Cpu.describe()).isTrue();
  }

  @Test
  void theMeasuredPropertyIsWhatABatchOfInputsOfOneLengthGets() {
    BertModel model = FullModel.uncased();
    Encoding x = model.encode("the old man walked slowly to the [MASK] every morning .", null);
    AttentionTrace alone = model.trace(x);

    List<Encoding> few = List.of(variant(x, 1), variant(x, 2), x, variant(x, 3));
    assertBatched(model, alone, model.trace(TraceRequest.of(few)).get(2));

    List<Encoding> many = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      many.add(i == 29 ? x : variant(x, i + 4));
    }
    // 40 rows of 13 tokens: 520 token rows in every product, other kernels' sizes
    assertBatched(model, alone, model.trace(TraceRequest.of(many)).get(29));
  }

  /** Bit for bit where the engine says its products are invariant, within float rounding where not. */
  private static void assertBatched(BertModel model, AttentionTrace alone, AttentionTrace batched) {
    if (model.batchInvariant()) {
      assertSame(alone, batched);
    } else {
      assertClose(alone, batched, 1e-5);
    }
  }

  @Test
  void paddedAmongLongerInputsATraceAgreesToFloatRounding() {
    // padding is outside the guarantee: the softmax over a padded row sums its zeros in another order
    BertModel model = FullModel.uncased();
    Encoding x = model.encode("the old man walked slowly to the [MASK] every morning .", null);
    AttentionTrace alone = model.trace(x);
    List<Encoding> mixed = new ArrayList<>();
    for (String s : OTHERS) {
      mixed.add(model.encode(s, null));
    }
    mixed.add(2, x);
    AttentionTrace padded = model.trace(TraceRequest.of(mixed)).get(2);
    double worst = 0;
    for (int l = 0; l < 12; l++) {
      for (int h = 0; h < 12; h++) {
        for (int i = 0; i < x.length(); i++) {
          for (int j = 0; j < x.length(); j++) {
            worst = Math.max(worst, Math.abs(alone.attention()[l][h][i][j] - padded.attention()[l][h][i][j]));
          }
        }
      }
    }
    assertThat(worst).isLessThan(1e-5);
  }

  @Test
  void aTraceWithHeadsOffIsTheSameInABatch() {
    BertModel model = FullModel.uncased();
    Encoding x = model.encode("the river flows past the old [MASK] .", "it is quiet there .");
    HeadMask mask = HeadMask.of(java.util.Set.of(new Head(3, 5), new Head(9, 0)), HeadMask.Mode.ZERO);
    AttentionTrace alone = model.trace(TraceRequest.of(x).mask(mask)).get(0);
    List<Encoding> batch = List.of(variant(x, 7), x, variant(x, 8));
    assertBatched(model, alone, model.trace(TraceRequest.of(batch).mask(mask)).get(1));
  }

  @Test
  void aRunReadingAFewPositionsGetsWhatTheWholeLastLayerGives() {
    // the last layer computes only the rows that are read (ReadRows) unless something else looks on: the
    // same bits where products are batch-invariant (fewer rows in the call), float rounding elsewhere
    BertModel model = FullModel.uncased();
    Encoding x = model.encode("the old man walked slowly to the [MASK] every morning .", null);
    List<Encoding> batch = List.of(x, variant(x, 1), variant(x, 2));
    io.headscope.model.engine.Readouts ro = io.headscope.model.engine.Readouts.none()
        .withLogProbs(List.of(new int[] {8}, new int[] {2, 5}, new int[] {1, 8, 11}));
    io.headscope.model.engine.RunRequest r = io.headscope.model.engine.RunRequest.of(batch)
        .intervene(io.headscope.model.engine.Intervention.heads(
            HeadMask.of(java.util.Set.of(new Head(11, 3), new Head(5, 5)), HeadMask.Mode.ZERO), model.config()))
        .read(ro);
    float[][][] narrow = model.run(r).logProbs();
    float[][][] whole = model.run(r.capture(io.headscope.model.engine.Capture.points(
        io.headscope.model.engine.HookPoint.Kind.EMBED))).logProbs();
    for (int b = 0; b < 3; b++) {
      if (model.batchInvariant()) {
        assertThat(narrow[b]).as("row %d", b).isDeepEqualTo(whole[b]);
      } else {
        for (int p = 0; p < whole[b].length; p++) {
          for (int v = 0; v < whole[b][p].length; v++) {
            assertThat(narrow[b][p][v]).as("row %d position %d token %d", b, p, v).isCloseTo(whole[b][p][v], within(1e-4f));
          }
        }
      }
    }
  }

  @Test
  void mapsOnlyStopTheLastLayerAtItsPatternAndGiveTheTracesBits() {
    BertModel model = FullModel.uncased();
    List<Encoding> batch = new ArrayList<>();
    for (String s : OTHERS) {
      batch.add(model.encode(s, null));
    }
    List<AttentionTrace> full = model.trace(TraceRequest.of(batch).top(1));
    List<AttentionTrace> maps = model.maps(batch);
    for (int i = 0; i < batch.size(); i++) {
      assertThat(maps.get(i).hiddenStates()).isNull();
      assertThat(maps.get(i).predictions()).isEmpty();
      for (int l = 0; l < 12; l++) {
        for (int h = 0; h < 12; h++) {
          assertThat(Arrays.deepEquals(full.get(i).attention()[l][h], maps.get(i).attention()[l][h]))
              .as("input %d head %d-%d", i, l + 1, h + 1).isTrue();
          assertThat(maps.get(i).valueNorms()[l][h]).containsExactly(full.get(i).valueNorms()[l][h]);
        }
      }
    }
  }

  /** Another input of the same length and segments: every wordpiece but the special ones replaced. */
  private static Encoding variant(Encoding x, int k) {
    long[] ids = x.ids().clone();
    for (int i = 1; i < ids.length - 1; i++) {
      if (ids[i] >= 1000) { // ordinary wordpieces (ids below 1000 are [unused], [CLS], [SEP], [MASK], ...)
        ids[i] = 1000 + (ids[i] * 31 + k * 977L) % 29000;
      }
    }
    return new Encoding(x.tokens(), ids, x.segments(), x.secondStart(), x.droppedWordpieces());
  }

  private static void assertClose(AttentionTrace expected, AttentionTrace actual, double tolerance) {
    double worst = 0;
    for (int l = 0; l < expected.attention().length; l++) {
      for (int h = 0; h < expected.attention()[l].length; h++) {
        float[][] e = expected.attention()[l][h];
        for (int i = 0; i < e.length; i++) {
          for (int j = 0; j < e[i].length; j++) {
            worst = Math.max(worst, Math.abs(e[i][j] - actual.attention()[l][h][i][j]));
          }
        }
      }
    }
    assertThat(worst).as("largest map difference").isLessThan(tolerance);
    assertThat(actual.predictions()).hasSameSizeAs(expected.predictions());
    for (int i = 0; i < expected.predictions().size(); i++) {
      float[] e = expected.predictions().get(i).probabilities();
      float[] a = actual.predictions().get(i).probabilities();
      for (int v = 0; v < e.length; v++) {
        assertThat(a[v]).as("[MASK] %d token %d", i, v).isCloseTo(e[v], within((float) tolerance));
      }
    }
  }

  private static void assertSame(AttentionTrace expected, AttentionTrace actual) {
    int layers = expected.attention().length;
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < expected.attention()[l].length; h++) {
        assertThat(Arrays.deepEquals(expected.attention()[l][h], actual.attention()[l][h]))
            .as("map of head %d-%d", l + 1, h + 1).isTrue();
        assertThat(Arrays.equals(expected.valueNorms()[l][h], actual.valueNorms()[l][h]))
            .as("value norms of head %d-%d", l + 1, h + 1).isTrue();
      }
    }
    assertThat(Arrays.deepEquals(expected.hiddenStates(), actual.hiddenStates())).as("hidden states").isTrue();
    assertThat(actual.predictions()).hasSameSizeAs(expected.predictions());
    for (int i = 0; i < expected.predictions().size(); i++) {
      assertThat(Arrays.equals(expected.predictions().get(i).probabilities(),
          actual.predictions().get(i).probabilities())).as("[MASK] distribution %d", i).isTrue();
    }
  }
}
