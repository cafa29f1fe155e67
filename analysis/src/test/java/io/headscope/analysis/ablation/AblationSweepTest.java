package io.headscope.analysis.ablation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The fast sweep against one plain forward pass per head, on a small random BERT. */
class AblationSweepTest {
  @TempDir static Path dir;
  static BertModel model;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(3, 4, 7).writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @ParameterizedTest
  @CsvSource({
      "the [MASK] sat on the [MASK] .,   ZERO",
      "the [MASK] sat on the [MASK] .,   UNIFORM",
      "the king was in paris and the queen was in france .,   ZERO",
      "the king was in paris and the queen was in france .,   UNIFORM"})
  void fastSweepEqualsOnePlainPassPerHeadAndPerLayer(String text, HeadMask.Mode mode) {
    Encoding input = model.encode(text, null);
    AblationResult r = new AblationSweep(model).run(input, new AblationSweep.Options(mode, true, 3));
    MlmProbe probe = MlmProbe.of(model, input, 3);

    double[] base = PlainPasses.measure(model, probe, Set.of(), mode);
    assertThat(r.baselineLogprob()).isCloseTo(base[0], within(1e-5));
    assertThat(r.baselineAccuracy()).isEqualTo(base[1]);
    double largest = 0;
    for (Head h : Head.all(3, 4)) {
      double[] plain = PlainPasses.measure(model, probe, Set.of(h), mode);
      assertThat(r.headLogprob()[h.layer()][h.head()]).as("logprob %s", h).isCloseTo(plain[0], within(1e-5));
      assertThat(r.headAccuracy()[h.layer()][h.head()]).as("accuracy %s", h).isEqualTo(plain[1]);
      assertThat(r.headKl()[h.layer()][h.head()]).as("kl %s", h).isCloseTo(plain[2], within(1e-5));
      largest = Math.max(largest, Math.abs(r.deltaLogprob(h.layer(), h.head())));
    }
    for (int l = 0; l < 3; l++) {
      double[] plain = PlainPasses.measure(model, probe, Head.parseList(String.valueOf(l + 1), 3, 4), mode);
      assertThat(r.layerLogprob()[l]).as("layer %d", l + 1).isCloseTo(plain[0], within(1e-5));
      assertThat(r.layerKl()[l]).isCloseTo(plain[2], within(1e-5));
    }
    assertThat(largest).as("switching heads off changes something").isGreaterThan(1e-3);
  }

  @Test
  void sampledProbeMasksFifteenPercentOfTheWordpiecesAndNoSpecialToken() {
    Encoding input = model.encode("the king was in paris and the queen was in france and the dog ran .", null);
    MlmProbe p = MlmProbe.of(model, input, 11);
    int wordpieces = input.length() - 2;
    assertThat(p.kind()).isEqualTo(MlmProbe.Kind.SAMPLED);
    assertThat(p.positions()).hasSize((int) Math.round(0.15 * wordpieces));
    for (int i = 0; i < p.positions().length; i++) {
      int pos = p.positions()[i];
      assertThat(pos).isBetween(1, input.length() - 2);
      assertThat(p.input().ids()[pos]).isEqualTo(model.tokenizer().maskId());
      assertThat(p.originals()[i]).isEqualTo(input.ids()[pos]);
    }
    int unchanged = 0;
    for (int i = 0; i < input.length(); i++) {
      unchanged += p.input().ids()[i] == input.ids()[i] ? 1 : 0;
    }
    assertThat(unchanged).isEqualTo(input.length() - p.positions().length);
    assertThat(MlmProbe.of(model, input, 11).positions()).containsExactly(p.positions());
    List<String> samples = new ArrayList<>();
    for (long seed = 0; seed < 6; seed++) {
      samples.add(java.util.Arrays.toString(MlmProbe.of(model, input, seed).positions()));
    }
    assertThat(samples.stream().distinct().count()).as("the seed chooses the sample").isGreaterThan(1);
  }

  @Test
  void typedMasksAreTheProbeAndStayAsTyped() {
    Encoding input = model.encode("the [MASK] sat .", null);
    MlmProbe p = MlmProbe.of(model, input, 0);
    assertThat(p.kind()).isEqualTo(MlmProbe.Kind.MASKS);
    assertThat(p.positions()).containsExactly(2);
    assertThat(p.input()).isSameAs(input);
  }

  @Test
  void aCorpusIsTheMeanOfItsInputsAlone() {
    List<Encoding> inputs = List.of(model.encode("the cat sat on the mat .", null),
        model.encode("the [MASK] was red .", null), model.encode("hello world", "the dog ran ."));
    AblationSweep sweep = new AblationSweep(model);
    AblationResult all = sweep.run(inputs, AblationSweep.Options.DEFAULT, (s, f) -> {}, () -> false);
    double expected = 0;
    double baseline = 0;
    for (Encoding e : inputs) {
      AblationResult one = sweep.run(e, AblationSweep.Options.DEFAULT);
      expected += one.headLogprob()[1][2] / 3;
      baseline += one.baselineLogprob() / 3;
    }
    assertThat(all.inputs()).isEqualTo(3);
    assertThat(all.hasLayers()).isFalse();
    assertThat(all.headLogprob()[1][2]).isCloseTo(expected, within(1e-9));
    assertThat(all.baselineLogprob()).isCloseTo(baseline, within(1e-9));
  }

  @ParameterizedTest
  @CsvSource({"ZERO, false", "ZERO, true", "UNIFORM, true"})
  void inputsSweptTogetherGetTheBitsTheyGetAlone(HeadMask.Mode mode, boolean layers) {
    // on every CPU: batched where the engine measures its products as batch-invariant, one input at a time
    // (the fallback) where it does not; either way each input's numbers are the bits it gets alone
    // typed masks and sampled ones, a pair, each with a reversed twin of its length to be swept with
    Encoding sampled = model.encode("the king was in paris and the queen was in france and the dog ran .", null);
    Encoding masked = model.encode("the [MASK] sat on the mat .", null);
    Encoding pair = model.encode("hello world", "the dog ran [MASK] .");
    List<Encoding> inputs = List.of(sampled, masked, reversed(sampled), pair, reversed(masked), reversed(pair),
        model.encode("a cat .", null));
    AblationSweep.Options o = new AblationSweep.Options(mode, layers, 5);
    List<AblationResult> together = new AblationSweep(model, 8).runEach(inputs, o, (s, f) -> {}, () -> false);
    List<AblationResult> alone = new AblationSweep(model, 1).runEach(inputs, o, (s, f) -> {}, () -> false);
    assertThat(together).hasSize(7);
    for (int i = 0; i < inputs.size(); i++) {
      AblationResult a = alone.get(i);
      AblationResult t = together.get(i);
      assertThat(t.baselineLogprob()).as("input %d", i).isEqualTo(a.baselineLogprob());
      assertThat(t.headLogprob()).as("input %d", i).isDeepEqualTo(a.headLogprob());
      assertThat(t.headAccuracy()).as("input %d", i).isDeepEqualTo(a.headAccuracy());
      assertThat(t.headKl()).as("input %d", i).isDeepEqualTo(a.headKl());
      if (layers) {
        assertThat(t.layerLogprob()).as("input %d", i).containsExactly(a.layerLogprob());
        assertThat(t.layerKl()).as("input %d", i).containsExactly(a.layerKl());
      }
    }
    // and each one alone is the plain sweep of that input, so the grouping cannot hide a wrong row
    assertThat(together.get(4).headLogprob())
        .isDeepEqualTo(new AblationSweep(model).run(inputs.get(4), o).headLogprob());
  }

  /** The input with its wordpieces between [CLS] and the last [SEP] in reverse order: another input of its length. */
  private static Encoding reversed(Encoding e) {
    long[] ids = e.ids().clone();
    for (int i = 1, j = ids.length - 2; i < j; i++, j--) {
      long t = ids[i];
      ids[i] = ids[j];
      ids[j] = t;
    }
    return new Encoding(e.tokens(), ids, e.segments(), e.secondStart(), e.droppedWordpieces());
  }

  @Test
  void progressIsReportedAfterEveryLayerOfEveryInputAndReachesTheEnd() {
    List<Encoding> inputs = List.of(model.encode("the cat sat .", null), model.encode("the dog ran .", null));
    List<Double> seen = new ArrayList<>();
    new AblationSweep(model, 1).run(inputs, AblationSweep.Options.DEFAULT, (s, f) -> seen.add(f), () -> false);
    assertThat(seen).hasSize(6).isSorted();
    assertThat(seen.get(5)).isEqualTo(1.0);
  }

  @Test
  void inputsSweptTogetherReportAfterEveryLayerOfTheirGroup() {
    List<Encoding> inputs = List.of(model.encode("the cat sat .", null), model.encode("the dog ran .", null),
        model.encode("the cat sat on the mat and the dog ran .", null));
    List<String> what = new ArrayList<>();
    assertThat(inputs.get(0).length()).isEqualTo(inputs.get(1).length()).isNotEqualTo(inputs.get(2).length());
    List<Double> seen = new ArrayList<>();
    new AblationSweep(model).run(inputs, AblationSweep.Options.DEFAULT, (s, f) -> {
      what.add(s);
      seen.add(f);
    }, () -> false);
    if (model.batchInvariant()) {
      // the two inputs of one length together (3 layers), the longer one alone
      assertThat(seen).hasSize(6).isSorted();
      assertThat(seen.get(2)).isCloseTo(2.0 / 3, within(1e-12));
      assertThat(seen.get(5)).isEqualTo(1.0);
      assertThat(what.get(0)).isEqualTo("Inputs 1-2 of 3");
      assertThat(what.get(5)).isEqualTo("Input 3 of 3");
    } else {
      // products that are not batch-invariant (an AMD CPU, MKL in its default mode): one input at a time
      assertThat(seen).hasSize(9).isSorted();
      assertThat(seen.get(2)).isCloseTo(1.0 / 3, within(1e-12));
      assertThat(seen.get(8)).isEqualTo(1.0);
      assertThat(what.get(0)).isEqualTo("Input 1 of 3");
      assertThat(what.get(3)).isEqualTo("Input 2 of 3");
      assertThat(what.get(8)).isEqualTo("Input 3 of 3");
    }
  }

  @Test
  void cancellingAfterTheFirstLayerStepStopsBeforeTheNextAndReturnsNothing() {
    List<Encoding> inputs = List.of(model.encode("the cat sat .", null), model.encode("the dog ran .", null));
    List<Double> seen = new ArrayList<>();
    boolean[] cancel = {false};
    int[] pollsAfterCancel = {0};
    AblationResult[] returned = {null};
    // cancel from the progress listener, as a person does after seeing the first step done
    assertThatThrownBy(() -> returned[0] = new AblationSweep(model, 1).run(inputs, AblationSweep.Options.DEFAULT,
        (s, f) -> {
          seen.add(f);
          cancel[0] = true;
        },
        () -> {
          pollsAfterCancel[0] += cancel[0] ? 1 : 0;
          return cancel[0];
        }))
        .isInstanceOf(CancellationException.class);
    assertThat(returned[0]).as("nothing is returned").isNull();
    // one layer step of six (2 inputs x 3 layers) had completed and been reported, and none after it
    assertThat(seen).containsExactly(1.0 / 6);
    assertThat(pollsAfterCancel[0]).as("the sweep stops at its first check after the request").isEqualTo(1);
  }

  @Test
  void aModelWithoutMaskedLmHeadIsRefusedInOneSentence() {
    try (BertModel bare = BertModel.load(TinyBert.create(2, 2, 1).withoutMlmHead().writeTo(dir.resolve("bare")))) {
      assertThatThrownBy(() -> new AblationSweep(bare).run(bare.encode("the cat", null), AblationSweep.Options.DEFAULT))
          .isInstanceOf(HeadScopeException.class).hasMessageContaining("no masked-LM head");
    }
  }
}
