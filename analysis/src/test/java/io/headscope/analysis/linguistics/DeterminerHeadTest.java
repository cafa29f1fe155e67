package io.headscope.analysis.linguistics;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.BertModel;
import io.headscope.model.testing.FullModel;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clark et al.'s determiner finding on our own annotations: on bert-base-uncased the best head for
 * {@code det} is in layer 8 (Clark: 8-11, 94.3% against 51.7% for the best offset) and clearly above
 * the positional baseline.
 */
@Tag("full-model")
class DeterminerHeadTest {
  @TempDir Path dir;

  @Test
  void theDeterminerHeadIsInLayerEightAndBeatsTheOffsetBaseline() throws Exception {
    Treebank t = ConlluReader.read(TreebankFilesTest.copy(dir, "syntax.conllu"));
    BertModel model = FullModel.uncased(); // shared by the full-model tests, closed at exit
    {
      SyntaxAnalysis.Result r = SyntaxAnalysis.run(model, t, 0, false, WordMaps.Progress.NONE, () -> false);
      DependencyHeads.Best det = r.heads().best().stream().filter(b -> b.relation().equals("det")).findFirst()
          .orElseThrow();
      System.out.printf("det: %d words, best %d-%d %s %.3f, baseline offset %d %.3f%n", det.count(), det.layer(),
          det.head(), det.direction().label(), det.accuracy(), det.baselineOffset(), det.baselineAccuracy());
      for (DependencyHeads.Best b : r.heads().best()) {
        System.out.printf("%-12s %4d  %2d-%-2d %-9s %.3f  offset %+d %.3f%n", b.relation(), b.count(), b.layer(),
            b.head(), b.direction().label(), b.accuracy(), b.baselineOffset(), b.baselineAccuracy());
      }
      assertThat(det.layer()).isEqualTo(8);
      assertThat(det.accuracy()).isGreaterThan(det.baselineAccuracy() + 0.2);
    }
  }
}
