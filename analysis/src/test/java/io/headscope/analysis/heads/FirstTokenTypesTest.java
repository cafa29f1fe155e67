package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A causal model's token types from a trace's summaries against the same shares counted by hand from its full maps:
 * per head the mean over rows of the weight on the first key, on full stops and commas, and
 * on the rest; per layer the mean over heads.
 */
class FirstTokenTypesTest {
  @TempDir Path dir;

  @Test
  void theSharesEqualTheFullMapsCountedByHand() {
    try (BertModel model = BertModel.load(FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 19))) {
      Encoding in = model.encode("the cat sat , on the mat .", null);
      AttentionTrace full = model.trace(in);
      List<String> tokens = full.tokens();
      assertThat(tokens).as("punctuation in the input").anyMatch(t -> TokenType.of(t) == TokenType.PUNCT);
      List<LayerTokenTypes> got = FirstTokenTypes.perLayer(full.summaries(TraceRequest.DEFAULT_THUMBNAIL_SIDE), tokens, false);
      int layers = model.config().numHiddenLayers();
      int heads = model.config().numAttentionHeads();
      assertThat(got).hasSize(layers);
      for (int l = 0; l < layers; l++) {
        double first = 0;
        double punct = 0;
        double other = 0;
        for (int h = 0; h < heads; h++) {
          float[][] map = full.map(new Head(l, h));
          for (float[] row : map) {
            for (int j = 0; j < row.length; j++) {
              double w = row[j] / (double) map.length / heads;
              if (j == 0) {
                first += w;
              } else if (List.of(".", ",", "\u0120.", "\u0120,").contains(tokens.get(j))) {
                punct += w;
              } else {
                other += w;
              }
            }
          }
        }
        TokenTypeShares s = got.get(l).weight();
        // the summaries' column means are computed in double and stored as float32: each rounded once (at most 6e-8
        // of a weight below 1), at most 9 of them summed per type
        assertThat(s.cls()).as("layer %d first token", l + 1).isCloseTo(first, within(1e-6));
        assertThat(s.punct()).as("layer %d punctuation", l + 1).isCloseTo(punct, within(1e-6));
        assertThat(s.other()).as("layer %d other", l + 1).isCloseTo(other, within(1e-6));
        assertThat(s.sep()).isZero();
        assertThat(got.get(l).norm()).isNull();
        assertThat(first + punct + other).isCloseTo(1, within(1e-5));
      }
      assertThat(got.get(0).weight().cls()).as("a causal map's first row is all on the first token")
          .isGreaterThan(1.0 / tokens.size());
    }
  }
}
