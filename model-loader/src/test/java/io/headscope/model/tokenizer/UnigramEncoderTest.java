package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ALBERT-like Unigram ({@link HandTokenizers#albert}): {@code <pad>}0 {@code <unk>}1 {@code [CLS]}2
 * {@code [SEP]}3 {@code [MASK]}4, ▁5 ▁u6 ▁un7 n8 s9 e10 se11 en12 seen13 ▁the14 ▁cat15 ▁a16 ▁b17 ▁c18 ▁d19.
 */
class UnigramEncoderTest {
  @TempDir Path dir;

  private HfTextEncoder albert(int maxLength) {
    return HfTextEncoder.open(HandTokenizers.albert(dir), maxLength);
  }

  /**
   * "unseen" is not a piece. Viterbi over "▁unseen" with the scores of the vocabulary (unknown
   * characters cost far more): ▁un + seen = -3 - 4 = -7; ▁un + se + en = -3 - 2.5 - 2.5 = -8; ▁u + n +
   * seen = -2.5 - 2 - 4 = -8.5; ▁u + n + se + en = -9.5; ▁un + se + e + n = -10.5; ▁un + s + e + en =
   * -11.5. The best is ▁un seen.
   */
  @Test
  void unseenWordIsSplitByViterbi() {
    try (HfTextEncoder enc = albert(32)) {
      AnnotatedEncoding x = enc.annotate("The unseen cat", null);
      assertThat(x.encoding().tokens()).containsExactly("[CLS]", "▁the", "▁un", "seen", "▁cat", "[SEP]");
      assertThat(x.encoding().ids()).containsExactly(2, 14, 7, 13, 15, 3);
      assertThat(x.wordOfToken()).containsExactly(-1, 0, 1, 1, 2, -1);
      assertThat(x.words()).isEqualTo(3);
    }
  }

  @Test
  void pairIsClsASepBSepWithBInSegmentOne() {
    try (HfTextEncoder enc = albert(32)) {
      AnnotatedEncoding x = enc.annotate("the cat", "unseen");
      assertThat(x.encoding().tokens()).containsExactly("[CLS]", "▁the", "▁cat", "[SEP]", "▁un", "seen", "[SEP]");
      assertThat(x.encoding().ids()).containsExactly(2, 14, 15, 3, 7, 13, 3);
      assertThat(x.encoding().segments()).containsExactly(0, 0, 0, 0, 1, 1, 1);
      assertThat(x.encoding().secondStart()).isEqualTo(4);
      assertThat(x.special()).containsExactly(true, false, false, true, false, false, true);
      assertThat(x.wordOfToken()).containsExactly(-1, 0, 1, -1, 2, 2, -1);
    }
  }

  /** XLM-R: the same pieces in RoBERTa's template, one segment. */
  @Test
  void xlmRobertaPairIsSBSlashSSlashSBSlashS() {
    try (HfTextEncoder enc = HfTextEncoder.open(HandTokenizers.xlmRoberta(dir), 32)) {
      AnnotatedEncoding x = enc.annotate("the cat", "unseen");
      assertThat(x.encoding().tokens())
          .containsExactly("<s>", "▁the", "▁cat", "</s>", "</s>", "▁un", "seen", "</s>");
      assertThat(x.encoding().ids()).containsExactly(2, 14, 15, 3, 3, 7, 13, 3);
      assertThat(x.encoding().segments()).containsOnly(0L);
      assertThat(x.encoding().secondStart()).isEqualTo(5);
      assertThat(x.wordOfToken()).containsExactly(-1, 0, 1, -1, -1, 2, 2, -1);
      assertThat(enc.encode("the <mask> cat").ids()).containsExactly(2, 14, 4, 15, 3);
      assertThat(enc.maskId()).isEqualTo(4);
    }
  }

  /** 2 + 2 tokens in 5 - 3 specials: the tie cuts b first, then a is the longer. */
  @Test
  void pairIsCutLongestFirst() {
    try (HfTextEncoder enc = albert(5)) {
      Encoding e = enc.encode("the cat", "unseen");
      assertThat(e.tokens()).containsExactly("[CLS]", "▁the", "[SEP]", "▁un", "[SEP]");
      assertThat(e.droppedWordpieces()).isEqualTo(2);
    }
  }

  /** [MASK] takes the space before it, so "the [MASK] cat" leaves no stray ▁. */
  @Test
  void typedMaskStaysTheMaskToken() {
    try (HfTextEncoder enc = albert(32)) {
      assertThat(enc.encode("the [MASK] cat").ids()).containsExactly(2, 14, 4, 15, 3);
      assertThat(enc.maskId()).isEqualTo(4);
      assertThat(enc.specialIds()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
    }
  }

  /** SentencePiece words end only at spaces: "the," is one word, its comma unknown. */
  @Test
  void wordsEndAtSpacesOnly() {
    try (HfTextEncoder enc = albert(32)) {
      AnnotatedEncoding x = enc.annotate("the, cat", null);
      assertThat(x.encoding().tokens()).containsExactly("[CLS]", "▁the", "<unk>", "▁cat", "[SEP]");
      assertThat(x.wordOfToken()).containsExactly(-1, 0, 0, 1, -1);
    }
  }

  @Test
  void encodeWordsPrefixesEveryWord() {
    try (HfTextEncoder enc = albert(32)) {
      WordEncoding w = enc.encodeWords(List.of("The", "unseen"));
      assertThat(w.encoding().tokens()).containsExactly("[CLS]", "▁the", "▁un", "seen", "[SEP]");
      assertThat(w.wordOfToken()).containsExactly(0, 1, 2, 2, 3);
      assertThat(w.words()).isEqualTo(4);
    }
  }

  /** " seen" is ▁ seen (-6 beats ▁ se en, -7): two tokens, so the piece as spelled is taken. */
  @Test
  void singleTokenTargets() {
    try (HfTextEncoder enc = albert(32)) {
      assertThat(enc.singleTokenId("Cat")).isEqualTo(15);
      assertThat(enc.singleTokenId("seen")).isEqualTo(13);
      assertThatThrownBy(() -> enc.singleTokenId("unseen")).isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("2 tokens (▁un seen)");
      assertThat(enc.vocabSize()).isEqualTo(20);
      assertThat(enc.vocabToken(13)).isEqualTo("seen");
    }
  }
}
