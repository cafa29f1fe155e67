package io.headscope.analysis.linguistics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The word-level maps of typed text, against a brute-force sum and mean written out here. */
class WordTraceTest {
  @TempDir Path dir;

  @Test
  void wordMapsOfATypedSentenceAreTheSumOverKeyPiecesAndTheMeanOverQueryPieces() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 3, 5).writeTo(dir.resolve("tiny")))) {
      // "walking", "cats" and "zq" split into ## pieces in the tiny vocabulary; the pair adds a [SEP] inside
      AttentionTrace t = model.trace(model.encode("the cats sat walking zq .", "a dog ran ."));
      assertThat(t.tokens()).anyMatch(s -> s.startsWith("##"));
      WordTrace w = WordTrace.of(t);
      List<String> tokens = t.tokens();

      // brute force: the words and each piece's word, straight from the ## marks
      List<List<Integer>> pieces = new ArrayList<>();
      for (int i = 0; i < tokens.size(); i++) {
        if (tokens.get(i).startsWith("##")) {
          pieces.get(pieces.size() - 1).add(i);
        } else {
          pieces.add(new ArrayList<>(List.of(i)));
        }
      }
      assertThat(w.words().words()).hasSize(pieces.size()).contains("[CLS]", "[SEP]", "walking", "cats");
      assertThat(w.words().words().stream().filter("[SEP]"::equals)).hasSize(2);

      for (int l = 0; l < t.layers(); l++) {
        for (int h = 0; h < t.heads(); h++) {
          float[][] a = t.attention()[l][h];
          float[][] m = w.attention()[l][h];
          for (int x = 0; x < pieces.size(); x++) {
            double rowSum = 0;
            for (int y = 0; y < pieces.size(); y++) {
              double sum = 0;
              for (int q : pieces.get(x)) {
                for (int k : pieces.get(y)) {
                  sum += a[q][k];
                }
              }
              double expected = sum / pieces.get(x).size();
              assertThat((double) m[x][y]).as("layer %d head %d word %d -> %d", l, h, x, y)
                  .isCloseTo(expected, within(1e-6));
              rowSum += m[x][y];
            }
            assertThat(rowSum).as("row %d sums to 1", x).isCloseTo(1.0, within(1e-5));
          }
        }
      }
      assertThat(WordTrace.secondStart(w.words(), t.encoding().secondStart()))
          .isEqualTo(w.words().words().indexOf("[SEP]") + 1);
    }
  }
}
