package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Vocabularies.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BertTextEncoderTest {
  private static BertTextEncoder full;

  @TempDir Path dir;

  @BeforeAll
  static void open() {
    full = BertTextEncoder.open(Vocabularies.tokenizerJson(Kind.UNCASED), 512);
  }

  @AfterAll
  static void close() {
    full.close();
  }

  private static BertTextEncoder withMaxLength(int maxLength) {
    return BertTextEncoder.open(Vocabularies.tokenizerJson(Kind.UNCASED), maxLength);
  }

  @Test
  void singleSentenceIsClsTextSepInSegmentZero() {
    Encoding e = full.encode("hello world");
    assertThat(e.tokens()).containsExactly("[CLS]", "hello", "world", "[SEP]");
    assertThat(e.segments()).containsExactly(0, 0, 0, 0);
    assertThat(e.secondStart()).isEqualTo(-1);
    assertThat(e.isPair()).isFalse();
    assertThat(e.wasTruncated()).isFalse();
    assertThat(full.encode("hello world", null)).usingRecursiveComparison().isEqualTo(e);
  }

  @Test
  void pairPutsTheSecondSentenceAndItsSepInSegmentOne() {
    Encoding e = full.encode("hello world", "how are you");
    assertThat(e.tokens()).containsExactly("[CLS]", "hello", "world", "[SEP]", "how", "are", "you", "[SEP]");
    assertThat(e.ids()).containsExactly(101, 7592, 2088, 102, 2129, 2024, 2017, 102);
    assertThat(e.segments()).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
    assertThat(e.secondStart()).isEqualTo(4);
    assertThat(e.isPair()).isTrue();
    assertThat(e.droppedWordpieces()).isZero();
  }

  @Test
  void longSentenceKeepsItsFirstWordpieces() {
    try (BertTextEncoder encoder = withMaxLength(6)) {
      Encoding e = encoder.encode("one two three four five six");
      assertThat(e.tokens()).containsExactly("[CLS]", "one", "two", "three", "four", "[SEP]");
      assertThat(e.droppedWordpieces()).isEqualTo(2);
      assertThat(e.wasTruncated()).isTrue();
      assertThat(encoder.encode("one two three four").droppedWordpieces()).isZero();
    }
  }

  /** Google's {@code _truncate_seq_pair}: drop from the longer sentence, from the second on a tie. */
  @ParameterizedTest(name = "{0} + {1} words in {2} tokens -> {3} + {4}")
  @CsvSource({
    "8, 3, 10, 4, 3",
    "3, 8, 10, 3, 4",
    "5, 5, 10, 4, 3",
    "6, 6, 11, 4, 4",
    "2, 2, 7, 2, 2",
    "20, 1, 6, 2, 1",
    "1, 20, 6, 1, 2"
  })
  void pairIsCutLongestFirst(int wordsA, int wordsB, int maxLength, int keptA, int keptB) {
    String a = words("one", wordsA);
    String b = words("two", wordsB);
    try (BertTextEncoder encoder = withMaxLength(maxLength)) {
      Encoding e = encoder.encode(a, b);
      assertThat(e.length()).isEqualTo(keptA + keptB + 3).isLessThanOrEqualTo(maxLength);
      assertThat(e.secondStart()).isEqualTo(keptA + 2);
      assertThat(e.tokens().subList(1, 1 + keptA)).containsOnly("one");
      assertThat(e.tokens().subList(e.secondStart(), e.secondStart() + keptB)).containsOnly("two");
      assertThat(e.droppedWordpieces()).isEqualTo(wordsA + wordsB - keptA - keptB);
      assertThat(e.segments()).containsExactly(
          IntStream.range(0, e.length()).mapToLong(i -> i < e.secondStart() ? 0 : 1).toArray());
    }
  }

  @Test
  void cutCanSplitAWordIntoItsWordpieces() {
    try (BertTextEncoder encoder = withMaxLength(5)) {
      // "tokenization" is "token" "##ization"
      assertThat(full.tokenize("tokenization")).containsExactly("token", "##ization");
      Encoding e = encoder.encode("hello hello tokenization");
      assertThat(e.tokens()).containsExactly("[CLS]", "hello", "hello", "token", "[SEP]");
      assertThat(e.droppedWordpieces()).isEqualTo(1);
    }
  }

  @Test
  void hugeTextIsCutToTheMaximum() {
    Encoding e = full.encode(words("word", 5000), words("other", 3000));
    assertThat(e.length()).isEqualTo(512);
    assertThat(e.secondStart()).isEqualTo(255 + 2); // 509 wordpieces: 255 of a, 254 of b
    assertThat(e.droppedWordpieces()).isEqualTo(8000 - 509);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "  \t\n\r ", "\u00A0\u3000", "\u0000\u200B\uFEFF", "\uD800"})
  void emptyTextIsAUserError(String text) {
    assertThatThrownBy(() -> full.encode(text))
        .isInstanceOf(HeadScopeException.class)
        .hasMessage("The text is empty: type a sentence.");
    assertThatThrownBy(() -> full.encode(text, "fine")).isInstanceOf(HeadScopeException.class)
        .hasMessage("The text is empty: type a sentence.");
  }

  @Test
  void nullTextIsAUserError() {
    assertThatThrownBy(() -> full.encode(null)).isInstanceOf(HeadScopeException.class)
        .hasMessage("The text is empty: type a sentence.");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "\n\t"})
  void emptySecondSentenceIsAUserError(String b) {
    assertThatThrownBy(() -> full.encode("hello", b))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageStartingWith("The second sentence is empty");
  }

  @Test
  void typedSpecialTokensStayInTheSentenceTheyWereTypedIn() {
    Encoding e = full.encode("a [SEP] b", "c [CLS] d [MASK]");
    assertThat(e.tokens())
        .containsExactly("[CLS]", "a", "[SEP]", "b", "[SEP]", "c", "[CLS]", "d", "[MASK]", "[SEP]");
    assertThat(e.ids()).containsExactly(101, 1037, 102, 1038, 102, 1039, 101, 1040, 103, 102);
    assertThat(e.secondStart()).isEqualTo(5);
    assertThat(e.segments()).containsExactly(0, 0, 0, 0, 0, 1, 1, 1, 1, 1);
  }

  @Test
  void onlyTheExactSpellingIsSpecial() {
    assertThat(full.tokenize("[mask] [ MASK ] [MASK[MASK]]"))
        .containsExactly("[", "mask", "]", "[", "mask", "]", "[", "mask", "[MASK]", "]");
  }

  @ParameterizedTest
  @ValueSource(strings = {
    "a\u0000b\u0001c\u007F\u009F", "I 🥰 you 😀 👩‍👩‍👧 🇫🇷", "Mixed 日本語 русский العربية हिन्दी",
    "\uDC00\uD800 orphans \uD83D", "\uFFFF\uFFFE noncharacters", "\u202Eright-to-left\u202C", "𝐀𝐁𝐂 ﷽"
  })
  void oddCharactersNeverThrow(String text) {
    Encoding e = full.encode(text, text);
    assertThat(e.length()).isGreaterThanOrEqualTo(5);
    assertThat(e.tokens()).doesNotContainNull();
    for (long id : e.ids()) {
      assertThat(id).isBetween(0L, (long) full.vocabSize() - 1);
    }
  }

  @Test
  void vocabularyLookups() {
    assertThat(full.vocabSize()).isEqualTo(30522);
    assertThat(full.maskId()).isEqualTo(103);
    assertThat(full.clsId()).isEqualTo(101);
    assertThat(full.sepId()).isEqualTo(102);
    assertThat(full.maxLength()).isEqualTo(512);
    assertThat(full.vocabToken(103)).isEqualTo("[MASK]");
    assertThat(full.vocabToken(7592)).isEqualTo("hello");
    assertThat(full.vocabToken(1)).isEqualTo("[unused0]");
    assertThat(full.vocabToken(30521)).isEqualTo("##～");
    assertThat(full.vocabToken(30522)).isEqualTo("<id 30522>");
    assertThatThrownBy(() -> full.vocabToken(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void closedEncoderRefusesToEncode() {
    BertTextEncoder encoder = withMaxLength(16);
    encoder.close();
    encoder.close(); // twice is fine
    assertThatThrownBy(() -> encoder.encode("hello")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void missingOrBrokenFilesAreUserErrors() throws IOException {
    assertThatThrownBy(() -> BertTextEncoder.open(dir.resolve("nope.json"), 512))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("does not exist");
    Path broken = Files.writeString(dir.resolve("broken.json"), "{\"model\": ");
    assertThatThrownBy(() -> BertTextEncoder.open(broken, 512))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("not valid JSON");
    Path other = Files.writeString(dir.resolve("other.json"), "{\"model\": {\"type\": \"BPE\"}}");
    assertThatThrownBy(() -> BertTextEncoder.open(other, 512))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("not a BERT tokenizer");
    assertThatThrownBy(() -> withMaxLength(4)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void tinyVocabularyWorksEndToEnd() throws IOException {
    Path vocab = Files.write(dir.resolve("vocab.txt"),
        List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "##s", "."));
    Path json = dir.resolve("tokenizer.json");
    TokenizerJsonWriter.write(vocab, true, json);
    try (BertTextEncoder encoder = BertTextEncoder.open(json, 32)) {
      Encoding e = encoder.encode("The cats SAT.", "[MASK] dog");
      assertThat(e.tokens())
          .containsExactly("[CLS]", "the", "cat", "##s", "sat", ".", "[SEP]", "[MASK]", "[UNK]", "[SEP]");
      assertThat(e.ids()).containsExactly(2, 5, 6, 8, 7, 9, 3, 4, 1, 3);
      assertThat(encoder.vocabSize()).isEqualTo(10);
    }
  }

  private static String words(String word, int n) {
    return String.join(" ", java.util.Collections.nCopies(n, word));
  }
}
