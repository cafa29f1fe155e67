package io.headscope.analysis.distance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Over a corpus, the distances are the mean over inputs of each input's mean over rows, computed here
 * one input and one pair at a time from the definition; batching (and its padding) changes nothing.
 */
class HeadDistanceAnalysisTest {
  @TempDir static Path dir;
  static BertModel model;

  private static final List<String[]> INPUTS = List.of(
      new String[] {"the cat sat on the mat .", null},
      new String[] {"a dog ran .", "the dog was fast ."},
      new String[] {"birds fly south in the winter , then come back .", null});

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(2, 3, 5).writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  private static CorpusLines lines(String text) {
    return CorpusLines.of("test corpus", new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
        CorpusReader.MAX_CHARS);
  }

  private static String corpusText(List<String[]> inputs) {
    StringBuilder s = new StringBuilder();
    for (String[] in : inputs) {
      s.append(in[0]).append(in[1] == null ? "" : "\t" + in[1]).append('\n');
    }
    return s.toString();
  }

  /** The mean over the given inputs, each traced alone, of the definition for one pair. */
  private static double expected(List<String[]> inputs, Head a, Head b) {
    double sum = 0;
    for (String[] in : inputs) {
      AttentionTrace t = model.trace(model.encode(in[0], in[1]));
      sum += JensenShannon.meanOverRows(t.map(a), t.map(b), JensenShannon.CLARK_SMOOTHING);
    }
    return sum / inputs.size();
  }

  @Test
  void aCorpusIsTheMeanOverInputsOfEachInputsDivergence() {
    HeadDistances d = new HeadDistanceAnalysis(model, 2).run(lines(corpusText(INPUTS) + "\n\n"), 0,
        CorpusAnalysis.Progress.NONE, () -> false);
    assertThat(d.inputs()).isEqualTo(3);
    assertThat(d.skipped()).isEqualTo(2); // the two blank lines
    assertThat(d.count()).isEqualTo(6);
    List<Head> heads = Head.all(2, 3);
    for (Head a : heads) {
      for (Head b : heads) {
        assertThat(d.divergence(a, b)).as("%s and %s", a, b).isCloseTo(expected(INPUTS, a, b), within(1e-6));
        assertThat(d.divergence(a, b)).isEqualTo(d.divergence(b, a));
      }
      assertThat(d.divergence(a, a)).isEqualTo(0.0);
    }
    assertThat(d.divergence(heads.get(0), heads.get(5))).isGreaterThan(1e-4);
  }

  @Test
  void maxInputsStopsAfterThatManyAnalysedInputs() {
    HeadDistances d = new HeadDistanceAnalysis(model, 1).run(lines(corpusText(INPUTS)), 2,
        CorpusAnalysis.Progress.NONE, () -> false);
    assertThat(d.inputs()).isEqualTo(2);
    Head a = new Head(0, 1);
    Head b = new Head(1, 2);
    assertThat(d.divergence(a, b)).isCloseTo(expected(INPUTS.subList(0, 2), a, b), within(1e-6));
  }

  @Test
  void oneTracedInputGivesItsOwnDivergences() {
    AttentionTrace t = model.trace(model.encode("the cat sat on the mat .", null));
    HeadDistances d = HeadDistanceAnalysis.of(t, () -> false, f -> {});
    Head a = new Head(0, 0);
    Head b = new Head(1, 1);
    assertThat(d.divergence(a, b)).isCloseTo(
        JensenShannon.meanOverRows(t.map(a), t.map(b), JensenShannon.CLARK_SMOOTHING), within(1e-12));
    assertThat(d.distances()[d.index(a)][d.index(b)]).isCloseTo(Math.sqrt(d.divergence(a, b)), within(1e-15));
  }

  @Test
  void aCorpusWithNothingToAnalyseIsOneClearError() {
    assertThatThrownBy(() -> new HeadDistanceAnalysis(model).run(lines("\n\n"), 0, CorpusAnalysis.Progress.NONE,
        () -> false)).isInstanceOf(HeadScopeException.class).hasMessageContaining("No input of test corpus");
  }
}
