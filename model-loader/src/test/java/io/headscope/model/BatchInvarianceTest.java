package io.headscope.model;

import static org.assertj.core.api.Assertions.assertThat;

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
 * bit, because the corpus sweeps batch such inputs together and their shards must merge into exactly
 * the bytes one run writes. Padded among longer inputs, an input agrees to float rounding only.
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
  void theEngineMeasuresItsProductsAsBatchInvariantOnThisPlatform() {
    // false means libtorch's MKL runs in its default mode: MKL_CBWR=AUTO,STRICT is missing from the environment
    assertThat(FullModel.uncased().batchInvariant()).as("MKL_CBWR=%s", System.getenv("MKL_CBWR")).isTrue();
  }

  @Test
  void aTraceIsBitIdenticalInEveryBatchOfInputsOfItsLength() {
    BertModel model = FullModel.uncased();
    assertThat(model.batchInvariant()).as("a platform without batch-invariant products").isTrue();
    Encoding x = model.encode("the old man walked slowly to the [MASK] every morning .", null);
    AttentionTrace alone = model.trace(x);

    List<Encoding> few = List.of(variant(x, 1), variant(x, 2), x, variant(x, 3));
    assertSame(alone, model.trace(few, HeadMask.NONE, 5).get(2));

    List<Encoding> many = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      many.add(i == 29 ? x : variant(x, i + 4));
    }
    // 40 rows of 13 tokens: 520 token rows in every product, other kernels' sizes
    assertSame(alone, model.trace(many, HeadMask.NONE, 5).get(29));
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
    AttentionTrace padded = model.trace(mixed, HeadMask.NONE, 5).get(2);
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
  void aTraceWithHeadsOffIsBitIdenticalInABatch() {
    BertModel model = FullModel.uncased();
    Encoding x = model.encode("the river flows past the old [MASK] .", "it is quiet there .");
    HeadMask mask = HeadMask.of(java.util.Set.of(new Head(3, 5), new Head(9, 0)), HeadMask.Mode.ZERO);
    AttentionTrace alone = model.trace(x, mask, 5);
    List<Encoding> batch = List.of(variant(x, 7), x, variant(x, 8));
    assertSame(alone, model.trace(batch, mask, 5).get(1));
  }

  @Test
  void aRunReadingAFewPositionsGetsTheBitsOfTheWholeLastLayer() {
    // the last layer computes only the rows that are read (ReadRows) unless something else looks on
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
      assertThat(narrow[b]).as("row %d", b).isDeepEqualTo(whole[b]);
    }
  }

  @Test
  void mapsOnlyStopTheLastLayerAtItsPatternAndGiveTheTracesBits() {
    BertModel model = FullModel.uncased();
    List<Encoding> batch = new ArrayList<>();
    for (String s : OTHERS) {
      batch.add(model.encode(s, null));
    }
    List<AttentionTrace> full = model.trace(batch, HeadMask.NONE, 1);
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
