package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DistilBERT/ELECTRA-like WordPiece ({@link HandTokenizers#wordPiece}): [PAD]0 [UNK]1 [CLS]2 [SEP]3
 * [MASK]4 the5 un6 ##seen7 cat8 .9 ##s10, lower-cased.
 */
class WordPieceEncoderTest {
  @TempDir Path dir;

  /** Greedy longest match: "unseen" is un ##seen, "cats" cat ##s; BERT's words split off the ".". */
  @Test
  void hfEncoderReadsWordPiece() {
    try (HfTextEncoder enc = HfTextEncoder.open(HandTokenizers.wordPiece(dir), 32)) {
      AnnotatedEncoding x = enc.annotate("The unseen cats.", null);
      assertThat(x.encoding().tokens())
          .containsExactly("[CLS]", "the", "un", "##seen", "cat", "##s", ".", "[SEP]");
      assertThat(x.encoding().ids()).containsExactly(2, 5, 6, 7, 8, 10, 9, 3);
      assertThat(x.wordOfToken()).containsExactly(-1, 0, 1, 1, 2, 2, 3, -1);
      AnnotatedEncoding pair = enc.annotate("the cat", "unseen");
      assertThat(pair.encoding().ids()).containsExactly(2, 5, 8, 3, 6, 7, 3);
      assertThat(pair.encoding().segments()).containsExactly(0, 0, 0, 0, 1, 1, 1);
      assertThat(enc.encodeWords(List.of("The", "unseen")).wordOfToken()).containsExactly(0, 1, 2, 2, 3);
      assertThat(enc.singleTokenId("##s")).isEqualTo(10);
      assertThat(enc.maskId()).isEqualTo(4);
    }
  }

  /** The BERT encoder gives the same words, and the factory picks it for BERT's text rules. */
  @Test
  void bertEncoderGivesTheSameWords() {
    Path json = HandTokenizers.wordPiece(dir);
    try (TextEncoder enc = TextEncoders.open(json, 32)) {
      assertThat(enc).isInstanceOf(BertTextEncoder.class);
      AnnotatedEncoding x = enc.annotate("The unseen cats.", "[MASK] cat");
      assertThat(x.encoding().ids()).containsExactly(2, 5, 6, 7, 8, 10, 9, 3, 4, 8, 3);
      assertThat(x.special()).containsExactly(true, false, false, false, false, false, false, true, false, false, true);
      assertThat(x.wordOfToken()).containsExactly(-1, 0, 1, 1, 2, 2, 3, -1, 4, 5, -1);
      assertThat(x.words()).isEqualTo(6);
      assertThat(enc.specialIds()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
    }
  }
}
