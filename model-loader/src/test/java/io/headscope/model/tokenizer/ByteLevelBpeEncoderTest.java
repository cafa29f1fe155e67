package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RoBERTa- and GPT-2-like byte-level BPE ({@link HandTokenizers#roberta}, {@link HandTokenizers#gpt2}).
 * Ids: RoBERTa {@code <s>}0 {@code </s>}2, byte b at 4 + b, merge of rank r at 260 + r, {@code <mask>}
 * 270; GPT-2 byte b at b, merge of rank r at 256 + r, {@code <|endoftext|>} 266.
 */
class ByteLevelBpeEncoderTest {
  @TempDir Path dir;

  private HfTextEncoder roberta(int maxLength) {
    return HfTextEncoder.open(HandTokenizers.roberta(dir), maxLength);
  }

  private HfTextEncoder gpt2(int maxLength) {
    return HfTextEncoder.open(HandTokenizers.gpt2(dir), maxLength);
  }

  /**
   * "café 😀": the pre-tokenizer splits "café" and " 😀" (a space goes with what follows). "café" =
   * 63 61 66 C3 A9 = c a f Ã ©; merges by rank: Ã© (0), ca (1), caf (2), cafÃ© (3): one token, id 263.
   * " 😀" = 20 F0 9F 98 80 = Ġ ð Ł ĺ Ģ; ðŁ (4), ðŁĺ (5), then no merge applies: Ġ (4 + 0x20 = 36),
   * ðŁĺ (265), Ģ (4 + 0x80 = 132).
   */
  @Test
  void nonAsciiTextAndAnEmojiBecomeByteLevelTokens() {
    try (HfTextEncoder enc = roberta(32)) {
      Encoding e = enc.encode("café 😀");
      assertThat(e.tokens()).containsExactly("<s>", "cafÃ©", "Ġ", "ðŁĺ", "Ģ", "</s>");
      assertThat(e.ids()).containsExactly(0, 263, 36, 265, 132, 2);
      assertThat(e.segments()).containsOnly(0L);
      assertThat(e.secondStart()).isEqualTo(-1);
    }
  }

  /** " café": Ã© (0) is merged before Ġc (8) could be, so the space stays a token of its own. */
  @Test
  void mergesApplyInRankOrder() {
    try (HfTextEncoder enc = roberta(32)) {
      assertThat(enc.tokenize("a café")).containsExactly("a", "Ġ", "cafÃ©");
      assertThat(enc.tokenize("a c")).containsExactly("a", "Ġc");
    }
  }

  @Test
  void pairIsClsASepSepBSepAllInSegmentZero() {
    try (HfTextEncoder enc = roberta(32)) {
      AnnotatedEncoding x = enc.annotate("a b", "café");
      Encoding e = x.encoding();
      assertThat(e.tokens()).containsExactly("<s>", "a", "Ġb", "</s>", "</s>", "cafÃ©", "</s>");
      assertThat(e.ids()).containsExactly(0, 101, 267, 2, 2, 263, 2);
      assertThat(e.segments()).containsOnly(0L);
      assertThat(e.secondStart()).isEqualTo(5);
      assertThat(x.special()).containsExactly(true, false, false, true, true, false, true);
      assertThat(x.wordOfToken()).containsExactly(-1, 0, 1, -1, -1, 2, -1);
      assertThat(x.words()).isEqualTo(3);
    }
  }

  /** "a b c d" is a Ġb Ġc Ġd, "d c" is d Ġc: 4 + 2 tokens in 8 - 4 specials: a loses two. */
  @Test
  void pairIsCutFromTheLongerSentence() {
    try (HfTextEncoder enc = roberta(8)) {
      Encoding e = enc.encode("a b c d", "d c");
      assertThat(e.tokens()).containsExactly("<s>", "a", "Ġb", "</s>", "</s>", "d", "Ġc", "</s>");
      assertThat(e.ids()).containsExactly(0, 101, 267, 2, 2, 104, 268, 2);
      assertThat(e.droppedWordpieces()).isEqualTo(2);
      assertThat(e.length()).isEqualTo(8);
    }
    try (HfTextEncoder enc = roberta(6)) { // 6 = the pair's four specials and one token each
      Encoding e = enc.encode("a b c d", "d c");
      assertThat(e.tokens()).containsExactly("<s>", "a", "</s>", "</s>", "d", "</s>");
      assertThat(e.droppedWordpieces()).isEqualTo(4);
      assertThat(enc.encode("a b c d").tokens()).containsExactly("<s>", "a", "Ġb", "Ġc", "Ġd", "</s>");
    }
    assertThatThrownBy(() -> roberta(5)).isInstanceOf(IllegalArgumentException.class);
  }

  /** {@code <mask>} takes the space before it (lstrip), as RoBERTa's does: "a <mask> b" is a <mask> Ġb. */
  @Test
  void typedMaskStaysTheMaskToken() {
    try (HfTextEncoder enc = roberta(32)) {
      AnnotatedEncoding x = enc.annotate("a <mask> b", null);
      assertThat(x.encoding().tokens()).containsExactly("<s>", "a", "<mask>", "Ġb", "</s>");
      assertThat(x.encoding().ids()).containsExactly(0, 101, 270, 267, 2);
      assertThat(x.special()).containsExactly(true, false, false, false, true);
      assertThat(x.wordOfToken()).containsExactly(-1, 0, 1, 2, -1);
      assertThat(enc.maskId()).isEqualTo(270);
      assertThat(enc.specialIds()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 270L);
    }
  }

  /** The words are the pre-tokenizer's: "a, b" splits as "a" "," " b"; "café 😀" as "café" " 😀". */
  @Test
  void wordsAreThePreTokenizersWords() {
    try (HfTextEncoder enc = roberta(32)) {
      AnnotatedEncoding x = enc.annotate("a, b", "café 😀");
      assertThat(x.encoding().tokens())
          .containsExactly("<s>", "a", ",", "Ġb", "</s>", "</s>", "cafÃ©", "Ġ", "ðŁĺ", "Ģ", "</s>");
      assertThat(x.wordOfToken()).containsExactly(-1, 0, 1, 2, -1, -1, 3, 4, 4, 4, -1);
      assertThat(x.words()).isEqualTo(5);
    }
  }

  /** Treebank words: the first as at the start of a text, the others with their space (Ġ). */
  @Test
  void encodeWordsGivesWordsAfterTheFirstTheirSpace() {
    try (HfTextEncoder enc = roberta(32)) {
      WordEncoding w = enc.encodeWords(List.of("café", "a", "😀"));
      assertThat(w.encoding().tokens()).containsExactly("<s>", "cafÃ©", "Ġa", "Ġ", "ðŁĺ", "Ģ", "</s>");
      assertThat(w.encoding().ids()).containsExactly(0, 263, 266, 36, 265, 132, 2);
      assertThat(w.wordOfToken()).containsExactly(0, 1, 2, 3, 3, 3, 4);
      assertThat(w.words()).isEqualTo(5);
      assertThat(w.fits()).isTrue();
    }
    try (HfTextEncoder enc = roberta(6)) {
      assertThat(enc.encodeWords(List.of("a", "b", "c", "d", "a")).fits()).isFalse(); // 7 tokens
    }
  }

  @Test
  void singleTokenTargetsAreLookedUpAsInMidSentence() {
    try (HfTextEncoder enc = roberta(32)) {
      assertThat(enc.singleTokenId("b")).isEqualTo(267); // " b" is Ġb
      assertThat(enc.singleTokenId("cafÃ©")).isEqualTo(263); // as the vocabulary spells it
      assertThat(enc.singleTokenId("Ġd")).isEqualTo(269);
      assertThatThrownBy(() -> enc.singleTokenId("café"))
          .isInstanceOf(HeadScopeException.class)
          .hasMessage("'café' is not in this model's vocabulary: it is 2 tokens (Ġ cafÃ©); give a word that is a single token.");
    }
  }

  @Test
  void vocabularyLookups() {
    try (HfTextEncoder enc = roberta(32)) {
      assertThat(enc.vocabSize()).isEqualTo(271);
      assertThat(enc.vocabToken(36)).isEqualTo("Ġ");
      assertThat(enc.vocabToken(4 + 0xC3)).isEqualTo("Ã");
      assertThat(enc.vocabToken(270)).isEqualTo("<mask>");
      assertThat(enc.vocabToken(271)).isEqualTo("<id 271>");
      assertThatThrownBy(() -> enc.vocabToken(-1)).isInstanceOf(IllegalArgumentException.class);
      assertThat(enc.maxLength()).isEqualTo(32);
    }
  }

  @Test
  void emptyTextIsAUserError() {
    try (HfTextEncoder enc = roberta(32)) {
      assertThatThrownBy(() -> enc.encode("")).hasMessage("The text is empty: type a sentence.");
      assertThatThrownBy(() -> enc.encode(null)).hasMessage("The text is empty: type a sentence.");
      // A byte-level model would encode the spaces themselves (Ġ Ġ), but blank text is no sentence.
      assertThatThrownBy(() -> enc.encode(" \t\n ")).hasMessage("The text is empty: type a sentence.");
      assertThatThrownBy(() -> enc.encode("a", "")).hasMessageStartingWith("The second sentence is empty");
    }
  }

  /** Every byte is in a byte-level vocabulary: controls, lone surrogates and emoji sequences encode. */
  @ParameterizedTest
  @ValueSource(strings = {"a\u0000b\u0001c\u007F", "\uDC00\uD800 orphans \uD83D", "👩‍👩‍👧 🇫🇷", "\u202Eab\u202C"})
  void oddCharactersNeverThrow(String text) {
    try (HfTextEncoder enc = roberta(256)) {
      Encoding e = enc.encode(text, text);
      assertThat(e.tokens()).doesNotContainNull();
      assertThat(java.util.Arrays.stream(e.ids())).allMatch(id -> id >= 0 && id < enc.vocabSize());
    }
  }

  // --- GPT-2: no special tokens at all ----------------------------------------------------

  @Test
  void gpt2AddsNoSpecialTokensAndHasNoMask() {
    try (HfTextEncoder enc = gpt2(16)) {
      Encoding one = enc.encode("café 😀");
      assertThat(one.tokens()).containsExactly("cafÃ©", "Ġ", "ðŁĺ", "Ģ");
      assertThat(one.ids()).containsExactly(259, 32, 261, 128);
      AnnotatedEncoding pair = enc.annotate("a b", "c");
      assertThat(pair.encoding().tokens()).containsExactly("a", "Ġb", "c");
      assertThat(pair.encoding().ids()).containsExactly(97, 263, 99);
      assertThat(pair.encoding().segments()).containsOnly(0L);
      assertThat(pair.encoding().secondStart()).isEqualTo(2);
      assertThat(pair.special()).containsOnly(false);
      assertThat(pair.wordOfToken()).containsExactly(0, 1, 2);
      assertThat(enc.maskId()).isEqualTo(TextEncoder.NO_TOKEN);
      assertThat(enc.specialIds()).containsExactly(266L);
    }
  }

  /** With no template the words keep BERT's numbering: 0 and n + 1 are there but have no token. */
  @Test
  void gpt2WordEncodingLeavesTheSpecialWordsEmpty() {
    try (HfTextEncoder enc = gpt2(16)) {
      WordEncoding w = enc.encodeWords(List.of("a", "b"));
      assertThat(w.encoding().tokens()).containsExactly("a", "Ġb");
      assertThat(w.wordOfToken()).containsExactly(1, 2);
      assertThat(w.words()).isEqualTo(4);
    }
  }

  @Test
  void gpt2KeepsATypedEndOfTextToken() {
    try (HfTextEncoder enc = gpt2(16)) {
      assertThat(enc.encode("a<|endoftext|>b").ids()).containsExactly(97, 266, 98);
    }
  }

  @Test
  void gpt2CutsTheLongerSentenceToo() {
    try (HfTextEncoder enc = gpt2(3)) {
      Encoding e = enc.encode("a b c", "d");
      assertThat(e.tokens()).containsExactly("a", "Ġb", "d");
      assertThat(e.droppedWordpieces()).isEqualTo(1);
    }
  }
}
