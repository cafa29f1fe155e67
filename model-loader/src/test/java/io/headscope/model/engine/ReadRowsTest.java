package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run that reads a few positions computes only those rows of its last layer ({@link ReadRows}); the
 * same request with a capture attached runs the whole layer. On this tiny model (head size 2) torch
 * multiplies the narrowed attention products with its own small-matrix loop rather than MKL, so the two
 * agree to float rounding; on bert-base they agree bit for bit (BatchInvarianceTest).
 */
class ReadRowsTest {
  @TempDir static Path dir;
  static BertModel model;
  static List<Encoding> inputs;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(3, 4, 21).withClassifier("no", "yes").writeTo(dir.resolve("tiny")));
    Encoding a = model.encode("the king was in paris and the dog ran .", null);
    long[] ids = a.ids().clone();
    for (int i = 1, j = ids.length - 2; i < j; i++, j--) {
      long t = ids[i];
      ids[i] = ids[j];
      ids[j] = t;
    }
    inputs = List.of(a, new Encoding(a.tokens(), ids, a.segments(), a.secondStart(), a.droppedWordpieces()));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  /** The same request, made to run every row of the last layer: a capture of the embeddings looks on. */
  private static RunResult whole(RunRequest r) {
    return model.run(r.capture(Capture.points(HookPoint.Kind.EMBED)));
  }

  @Test
  void logProbsAtAFewPositionsAreTheWholeLayersBits() {
    RunRequest r = RunRequest.of(inputs).read(Readouts.none().withLogProbs(List.of(new int[] {2, 5}, new int[] {1})));
    float[][][] narrow = model.run(r).logProbs();
    float[][][] full = whole(r).logProbs();
    assertThat(narrow[0]).hasNumberOfRows(2);
    assertThat(narrow[1]).hasNumberOfRows(1);
    for (int b = 0; b < 2; b++) {
      close(narrow[b], full[b]);
    }
  }

  @Test
  void comparisonsOfVariantsWithHeadsOffAreTheWholeLayersBits() {
    float[][][] intact = model.run(RunRequest.of(inputs)
        .read(Readouts.none().withLogProbs(List.of(new int[] {3}, new int[] {4, 6})))).logProbs();
    List<Readouts.Comparison> c = List.of(
        new Readouts.Comparison(new int[] {3}, new long[] {7}, intact[0], new long[] {9}),
        new Readouts.Comparison(new int[] {4, 6}, new long[] {8, 11}, intact[1], new long[] {5, 5}));
    // three variants of each input, variant-major, heads off in every layer including the last
    List<Encoding> batch = new ArrayList<>();
    float[][][] masks = new float[6][3][4];
    for (int v = 0; v < 3; v++) {
      for (int i = 0; i < 2; i++) {
        batch.add(inputs.get(i));
        for (float[] row : masks[v * 2 + i]) {
          java.util.Arrays.fill(row, 1f);
        }
        masks[v * 2 + i][v][v + 1] = 0f;
        masks[v * 2 + i][2][v] = 0f;
      }
    }
    for (HeadMask.Mode mode : HeadMask.Mode.values()) {
      RunRequest r = RunRequest.of(batch).intervene(new Intervention.HeadMasks(masks, mode))
          .read(Readouts.none().withComparisons(c));
      RunResult.TargetScores[] narrow = model.run(r).comparison();
      RunResult.TargetScores[] full = whole(r).comparison();
      for (int row = 0; row < 6; row++) {
        assertThat(narrow[row].targetLogProbs()).as("%s row %d", mode, row)
            .containsExactly(full[row].targetLogProbs(), within(1e-5f));
        assertThat(narrow[row].contrastLogProbs()).containsExactly(full[row].contrastLogProbs(), within(1e-5f));
        assertThat(narrow[row].kl()).containsExactly(full[row].kl(), within(1e-5f));
        assertThat(narrow[row].top()).containsExactly(full[row].top());
      }
      assertThat(narrow[4].targetLogProbs()).as("variants differ").isNotEqualTo(narrow[0].targetLogProbs());
    }
  }

  @Test
  void theClassifierReadsCLSAloneAndGetsTheWholeLayersBits() {
    RunRequest r = RunRequest.of(inputs).read(Readouts.none().withClassifier());
    float[][] narrow = model.run(r).classProbabilities();
    float[][] full = whole(r).classProbabilities();
    close(narrow, full);
    // with positions as well, [CLS] comes first and the positions after it
    RunRequest both = RunRequest.of(inputs).read(Readouts.none().withClassifier().withLogProbs(new int[] {4}));
    RunResult n = model.run(both);
    RunResult f = whole(both);
    close(n.classProbabilities(), full);
    close(n.logProbs()[1], f.logProbs()[1]);
    assertThat(n.logProbs()[1][0]).as("a real distribution").isNotEqualTo(n.logProbs()[0][0]);
    // a row that reads no position beside one that does: [CLS] alone fills its rows
    RunRequest uneven = RunRequest.of(inputs)
        .read(Readouts.none().withClassifier().withLogProbs(List.of(new int[0], new int[] {3})));
    RunResult u = model.run(uneven);
    close(u.classProbabilities(), full);
    assertThat(u.logProbs()[0]).isEmpty();
    close(u.logProbs()[1], whole(uneven).logProbs()[1]);
  }

  private static void close(float[][] actual, float[][] expected) {
    assertThat(actual).hasSameDimensionsAs(expected);
    for (int i = 0; i < expected.length; i++) {
      assertThat(actual[i]).as("row %d", i).containsExactly(expected[i], within(1e-5f));
    }
  }

  @Test
  void aRunKeepingMapsAndStreamsButReadingNothingKeepsEveryLayersInput() {
    // nothing reads the output, so the last layer stops at its pattern: its input is still seen
    RunResult maps = model.run(RunRequest.of(inputs)
        .capture(Capture.points(HookPoint.Kind.RESID_PRE, HookPoint.Kind.ATTN_PATTERN)));
    RunResult full = whole(RunRequest.of(inputs)
        .capture(Capture.points(HookPoint.Kind.RESID_PRE, HookPoint.Kind.ATTN_PATTERN, HookPoint.Kind.FINAL)));
    for (int l = 0; l < 3; l++) {
      assertThat(maps.cache().get(HookPoint.residPre(l))).as("resid_pre %d", l).isEqualTo(full.cache().get(HookPoint.residPre(l)));
      assertThat(maps.cache().get(HookPoint.pattern(l))).as("pattern %d", l).isEqualTo(full.cache().get(HookPoint.pattern(l)));
    }
  }

  @Test
  void aRunThatLooksAtMoreRunsTheWholeLayer() {
    Readouts ro = Readouts.none().withLogProbs(new int[] {2});
    assertThat(ReadRows.of(RunRequest.of(inputs).read(ro), inputs.get(0).length())).isNotNull();
    assertThat(ReadRows.of(RunRequest.of(inputs).read(ro).capture(Capture.points(HookPoint.Kind.FINAL)), 12)).isNull();
    assertThat(ReadRows.of(RunRequest.of(inputs).read(ro.withMaskedLm(3)), 12)).isNull();
    assertThat(ReadRows.of(RunRequest.of(inputs).read(Readouts.none()), 12)).isNull();
    assertThat(ReadRows.of(RunRequest.of(inputs).read(ro)
        .intervene(new Intervention.Patch(HookPoint.embed(), null)), 12)).isNull();
  }
}
