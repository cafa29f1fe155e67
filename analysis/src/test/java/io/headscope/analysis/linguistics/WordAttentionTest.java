package io.headscope.analysis.linguistics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Clark's word-level conversion on a map small enough to do by hand. */
class WordAttentionTest {
  @Test
  void attentionToAWordIsSummedAndFromAWordIsAveraged() {
    // pieces: [CLS] play ##ing now [SEP] -> words: [CLS] playing now [SEP]
    WordAttention.Words w = WordAttention.of(List.of("[CLS]", "play", "##ing", "now", "[SEP]"));
    assertThat(w.words()).containsExactly("[CLS]", "playing", "now", "[SEP]");
    assertThat(w.wordOf()).containsExactly(0, 1, 1, 2, 3);
    float[][] pieces = {
        {0.1f, 0.2f, 0.3f, 0.4f, 0.0f},
        {0.0f, 0.5f, 0.1f, 0.2f, 0.2f},
        {0.4f, 0.0f, 0.2f, 0.2f, 0.2f},
        {0.2f, 0.2f, 0.2f, 0.2f, 0.2f},
        {1.0f, 0.0f, 0.0f, 0.0f, 0.0f}};
    float[][] words = w.map(pieces);
    // row "playing" = mean of piece rows 1 and 2; column "playing" = sum of piece columns 1 and 2
    assertThat((double) words[1][0]).isCloseTo((0.0 + 0.4) / 2, within(1e-7));
    assertThat((double) words[1][1]).isCloseTo((0.5 + 0.1 + 0.0 + 0.2) / 2, within(1e-7));
    assertThat((double) words[1][2]).isCloseTo((0.2 + 0.2) / 2, within(1e-7));
    assertThat((double) words[0][1]).isCloseTo(0.2 + 0.3, within(1e-7));
    assertThat((double) words[3][0]).isCloseTo(1.0, within(1e-7));
    for (float[] row : words) {
      double sum = 0;
      for (float v : row) {
        sum += v;
      }
      assertThat(sum).isCloseTo(1.0, within(1e-6));
    }
  }

  @Test
  void aContinuationAfterASpecialTokenStartsAWord() {
    assertThat(WordAttention.of(List.of("[CLS]", "##s", "[MASK]", "##ed", "[SEP]")).words())
        .containsExactly("[CLS]", "##s", "[MASK]", "##ed", "[SEP]");
  }

  @Test
  void byteLevelTokensStartAWordAtTheSpaceMarkAndSplitPunctuationOff() {
    // "the cats sat." as a GPT-2-style BPE might cut it: the first word has no Ġ (no space before it)
    WordAttention.Words w = WordAttention.of(List.of("the", "\u0120cat", "s", "\u0120sat", "."));
    assertThat(w.words()).containsExactly("the", "cats", "sat", ".");
    assertThat(w.wordOf()).containsExactly(0, 1, 1, 2, 3);
    WordAttention.Words r = WordAttention.of(List.of("<s>", "the", "\u0120un", "seen", "</s>", "</s>", "\u0120a", "</s>"));
    assertThat(r.words()).containsExactly("<s>", "the", "unseen", "</s>", "</s>", "a", "</s>");
  }

  @Test
  void aLoneSpaceMarkOpensTheWordItsNeighboursSpell() {
    // a tiny vocabulary cuts " cat" into Ġ + ca + t
    WordAttention.Words w = WordAttention.of(List.of("<s>", "t", "h", "e", "\u0120", "ca", "t", ".", "</s>"));
    assertThat(w.words()).containsExactly("<s>", "the", "cat", ".", "</s>");
    // a lone mark before punctuation or an unknown piece opens that piece's word: no empty word
    assertThat(WordAttention.of(List.of("the", "\u0120", ".", "\u0120", "cat")).words())
        .containsExactly("the", ".", "cat");
  }

  @Test
  void sentencePieceTokensStartAWordAtTheirMark() {
    WordAttention.Words w = WordAttention.of(List.of("[CLS]", "\u2581un", "seen", "\u2581cat", "[SEP]"));
    assertThat(w.words()).containsExactly("[CLS]", "unseen", "cat", "[SEP]");
    assertThat(w.wordOf()).containsExactly(0, 1, 1, 2, 3);
  }
}
