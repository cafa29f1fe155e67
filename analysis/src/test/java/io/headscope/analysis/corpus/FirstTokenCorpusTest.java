package io.headscope.analysis.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.heads.FirstTokenTypes;
import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.testing.families.FamilyModelFolders;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corpus means of a causal model's token types against each input's shares averaged here; a blank line is
 * skipped and counted, as in every corpus command.
 */
class FirstTokenCorpusTest {
  @TempDir Path dir;

  @Test
  void theMeansAreEachInputsSharesAveraged() {
    List<String> texts = List.of("the cat sat , on the mat .", "a dog ran .", "the cat");
    String corpus = texts.get(0) + "\n\n" + texts.get(1) + "\n" + texts.get(2) + "\n";
    try (BertModel model = BertModel.load(FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 23));
        CorpusLines lines = CorpusLines.of("three", new ByteArrayInputStream(corpus.getBytes(StandardCharsets.UTF_8)),
            CorpusReader.MAX_CHARS)) {
      FirstTokenCorpus.Result r = new FirstTokenCorpus(model, 1).run(lines, CorpusAnalysis.Progress.NONE, () -> false);
      assertThat(r.analysed()).isEqualTo(3);
      assertThat(r.skipped()).isEqualTo(1);
      assertThat(r.problems()).singleElement().satisfies(p -> assertThat(p.line()).isEqualTo(2));
      int layers = model.config().numHiddenLayers();
      double[][] want = new double[layers][3];
      // the inputs' traces as the corpus run makes them (its worker threads reduce in their own order, so a trace
      // made on this thread may differ in float32's last bits); each input's shares are FirstTokenTypesTest's
      List<io.headscope.model.AttentionTrace> traces = new java.util.ArrayList<>();
      java.util.Iterator<String> it = texts.iterator();
      int[] line = {0};
      new CorpusBatches(model, 1, false).run("three", () -> it.hasNext() ? new CorpusInput(++line[0], it.next(), null)
          : null, in -> {}, () -> -1, texts.size(), CorpusAnalysis.Progress.NONE, () -> false, traces::addAll);
      assertThat(traces).hasSize(texts.size());
      for (var t : traces) {
        List<LayerTokenTypes> one = FirstTokenTypes.perLayer(t.summaries(TraceRequest.DEFAULT_THUMBNAIL_SIDE), t.tokens(), false);
        for (int l = 0; l < layers; l++) {
          want[l][0] += one.get(l).weight().cls() / texts.size();
          want[l][1] += one.get(l).weight().punct() / texts.size();
          want[l][2] += one.get(l).weight().other() / texts.size();
        }
      }
      assertThat(r.perLayer()).hasSize(layers);
      for (int l = 0; l < layers; l++) {
        // the same traces: only the order of the double sums differs
        assertThat(r.perLayer().get(l).weight().cls()).isCloseTo(want[l][0], within(1e-12));
        assertThat(r.perLayer().get(l).weight().punct()).isCloseTo(want[l][1], within(1e-12));
        assertThat(r.perLayer().get(l).weight().other()).isCloseTo(want[l][2], within(1e-12));
      }
      assertThat(want[0][1]).as("punctuation attended").isGreaterThan(0);
    }
  }
}
