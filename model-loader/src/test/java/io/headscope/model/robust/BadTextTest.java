package io.headscope.model.robust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Whatever a user types goes through the tokenizer and the model, or fails with one clear sentence. */
class BadTextTest {
  @TempDir static Path tmp;
  private static BertModel model;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(2, 4, 31).writeTo(tmp.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "   \t\n  ", "\u0000\u0001\u0007", "\u200b\u00a0 \u3000", "\ufffd"})
  void emptyWhitespaceOrControlOnlyTextIsRefused(String text) {
    assertThatThrownBy(() -> model.encode(text, null))
        .isInstanceOf(HeadScopeException.class)
        .hasMessage("The text is empty: type a sentence.");
  }

  @Test
  void nullTextIsRefusedToo() {
    assertThatThrownBy(() -> model.encode(null, null)).isInstanceOf(HeadScopeException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "  ", "\u0007"})
  void pairWithAnEmptySideIsRefused(String empty) {
    assertThatThrownBy(() -> model.encode("the cat sat", empty))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("second sentence is empty");
    assertThatThrownBy(() -> model.encode(empty, "the cat sat"))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("text is empty");
  }

  @Test
  void textLongerThanMaxPositionsIsTruncatedAndSaysHowMuch() {
    int max = model.config().maxPositionEmbeddings();
    String text = "the cat sat on the mat . ".repeat(30);
    int wordpieces = model.tokenizer().tokenize(text).size(); // counted without truncation
    Encoding e = model.encode(text, null);
    assertThat(e.length()).isEqualTo(max);
    assertThat(e.droppedWordpieces()).isEqualTo(wordpieces - (max - 2));
    assertThat(e.wasTruncated()).isTrue();
    assertThat(e.tokens().get(max - 1)).isEqualTo("[SEP]");
    Maps.assertRowsAreDistributions(model.trace(e), 1e-5);
  }

  @Test
  void longPairIsCutFromTheLongerSide() {
    int max = model.config().maxPositionEmbeddings();
    String longText = "the dog ran ".repeat(40);
    Encoding e = model.encode("a cat", longText);
    assertThat(e.length()).isEqualTo(max);
    assertThat(e.tokens().subList(0, 4)).containsExactly("[CLS]", "a", "cat", "[SEP]");
    assertThat(e.droppedWordpieces()).isEqualTo(120 - (max - 5));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "the cat \u0000sat\u0008 on\u001b[31m the mat",  // control characters and an ANSI escape
      "the cat 😺 sat on the 🧶 mat 👩‍👩‍👧",            // emoji, a ZWJ sequence
      "the cat Кошка 猫 قطة חתול sat",                   // mixed scripts, right-to-left included
      "e\u0301te\u0301 cafe\u0301 \u0645\u064e",        // combining marks
      "the \ud800 cat \udfff sat",                       // unpaired surrogates
      "𝔱𝔥𝔢 𝕔𝕒𝕥 \uD83D\uDE00",                          // supplementary planes
      "supercalifragilisticexpialidocioussupercalifragilisticexpialidocioussupercalifragilistic"
          + "expialidocioussupercalifragilisticexpialidocioussupercalifragilisticexpialidocious" // a long word
  })
  void oddTextGoesThroughTheModel(String text) {
    AttentionTrace t = model.trace(model.encode(text, null));
    Maps.assertRowsAreDistributions(t, 1e-5);
    assertThat(t.encoding().tokens().get(0)).isEqualTo("[CLS]");
  }

  @Test
  void loneSpecialTokensTypedByTheUserAreKeptAsThemselves() {
    Encoding sep = model.encode("[SEP]", null);
    assertThat(sep.tokens()).containsExactly("[CLS]", "[SEP]", "[SEP]");
    Encoding cls = model.encode("[CLS]", null);
    assertThat(cls.tokens()).containsExactly("[CLS]", "[CLS]", "[SEP]");
    Encoding both = model.encode("[CLS] [SEP]", "[SEP]");
    assertThat(both.tokens()).containsExactly("[CLS]", "[CLS]", "[SEP]", "[SEP]", "[SEP]", "[SEP]");
    assertThat(both.segments()).containsExactly(0, 0, 0, 0, 1, 1);
    for (Encoding e : new Encoding[] {sep, cls, both}) {
      Maps.assertRowsAreDistributions(model.trace(e), 1e-5);
    }
  }

  @Test
  void aMaskAloneIsPredicted() {
    AttentionTrace t = model.trace(model.encode("[MASK]", null));
    assertThat(t.predictions()).hasSize(1);
  }
}
