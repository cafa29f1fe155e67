package io.headscope.app.gui.main;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the app reads typed text and what it says about it. */
class InputTextTest {
  @Test
  void lowerCaseMasksAreReadAsTheMaskToken() {
    assertThat(InputText.upperCaseMasks("the [mask] sat on the [Mask] .")).isEqualTo("the [MASK] sat on the [MASK] .");
    assertThat(InputText.upperCaseMasks("no mask here [ mask ]")).isEqualTo("no mask here [ mask ]");
  }

  @Test
  void theNoteNamesCutWordpiecesTheMaskFixAndTheCharactersBehindUnk() {
    Encoding e = new Encoding(List.of("[CLS]", "i", "[UNK]", "it", "[SEP]"), new long[] {101, 1045, 100, 2009, 102},
        new long[5], -1, 12);
    String note = InputText.note(e, 5, true, "I 😀 it and so on");
    assertThat(note).contains("12 wordpieces cut").contains("[mask] read as [MASK]").contains("1 × [UNK]")
        .contains("😀");
    Encoding clean = new Encoding(List.of("[CLS]", "it", "[SEP]"), new long[] {101, 2009, 102}, new long[3], -1, 0);
    assertThat(InputText.note(clean, 512, false, "it")).isEmpty();
  }
}
