package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one vocabulary check of every word a command follows (issue 39, G06 and G12), on the hand-made
 * WordPiece vocabulary ({@link HandTokenizers#wordPiece}: [PAD]0 [UNK]1 [CLS]2 [SEP]3 [MASK]4 the5 un6
 * ##seen7 cat8 .9 ##s10, lower-cased). "zzzz" has no piece at all (no "z" in the vocabulary), so
 * WordPiece reads the whole word as the single token [UNK]: one token, but not the word.
 */
class TargetWordsTest {
  @TempDir Path dir;

  @Test
  void aWordReadAsUnkIsNotInTheVocabularyForBothWordPieceEncoders() {
    Path json = HandTokenizers.wordPiece(dir);
    try (TextEncoder bert = TextEncoders.open(json, 32); TextEncoder hf = HfTextEncoder.open(json, 32)) {
      assertThat(bert).isInstanceOf(BertTextEncoder.class);
      for (TextEncoder enc : new TextEncoder[] {bert, hf}) {
        assertThat(enc.tokenize("zzzz")).as("the premise: one piece, [UNK]").containsExactly("[UNK]");
        assertThatThrownBy(() -> enc.singleTokenId("zzzz")).isInstanceOf(HeadScopeException.class)
            .hasMessageStartingWith("'zzzz' is not in this model's vocabulary: it would be read as [UNK]");
        assertThat(enc.singleTokenId("Cat")).isEqualTo(8);
        assertThat(enc.singleTokenId("[UNK]")).as("the unknown token asked for by its own spelling").isEqualTo(1);
      }
    }
  }

  /** A word that splits is refused with the same words, and its pieces named. */
  @Test
  void aWordThatSplitsIsNotInTheVocabularyEither() {
    try (TextEncoder enc = TextEncoders.open(HandTokenizers.wordPiece(dir), 32)) {
      assertThatThrownBy(() -> enc.singleTokenId("unseen")).isInstanceOf(HeadScopeException.class)
          .hasMessage("'unseen' is not in this model's vocabulary: it is 2 wordpieces (un ##seen); give a word that "
              + "is a single wordpiece.");
      assertThatThrownBy(() -> enc.singleTokenId("##zz")).isInstanceOf(HeadScopeException.class)
          .hasMessage("'##zz' is not in this model's vocabulary.");
    }
  }

  /** The unknown token of a Unigram vocabulary: "zzzz" is ▁ then one fused <unk>, two tokens. */
  @Test
  void unigramUnknownWordsAreRefused() {
    try (TextEncoder enc = HfTextEncoder.open(HandTokenizers.albert(dir), 32)) {
      assertThatThrownBy(() -> enc.singleTokenId("zzzz")).isInstanceOf(HeadScopeException.class)
          .hasMessageStartingWith("'zzzz' is not in this model's vocabulary: it is 2 tokens (▁ <unk>)");
    }
  }

  @Test
  void targetAndContrastAreCheckedTogether() {
    try (TextEncoder enc = TextEncoders.open(HandTokenizers.wordPiece(dir), 32)) {
      assertThat(enc.targetAndContrast("the", "cat")).containsExactly(5, 8);
      assertThat(enc.targetAndContrast("cat", null)).containsExactly(8, TextEncoder.NO_TOKEN);
      assertThat(enc.targetAndContrast(null, null)).containsExactly(TextEncoder.NO_TOKEN, TextEncoder.NO_TOKEN);
      // an uncased model reads "CAT" as "cat": the same token, so every difference would be 0
      assertThatThrownBy(() -> enc.targetAndContrast("cat", "CAT")).isInstanceOf(HeadScopeException.class)
          .hasMessage("The contrast 'CAT' is the target 'cat' itself (the token cat): a difference with itself is 0 "
              + "everywhere; give another contrast.");
      assertThatThrownBy(() -> enc.targetAndContrast("cat", "zzzz")).isInstanceOf(HeadScopeException.class)
          .hasMessageStartingWith("'zzzz' is not in this model's vocabulary");
      // two unknown words were two [UNK]s, equal: refused as unknown before they can be compared
      assertThatThrownBy(() -> enc.targetAndContrast("zzzz", "qqqq")).isInstanceOf(HeadScopeException.class)
          .hasMessageStartingWith("'zzzz' is not in this model's vocabulary");
    }
  }

  /** A word is quoted on one line whatever it holds. */
  @Test
  void controlCharactersInAWordStayOnOneLine() {
    try (TextEncoder enc = TextEncoders.open(HandTokenizers.wordPiece(dir), 32)) {
      assertThatThrownBy(() -> enc.singleTokenId("a\nb")).isInstanceOf(HeadScopeException.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").startsWith("'a\\u000ab' is not in"));
    }
  }
}
