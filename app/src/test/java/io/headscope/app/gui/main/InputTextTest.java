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

  /** Issue 40: BERT's [MASK] typed for RoBERTa (and <mask> for BERT) is read as the model's own, and said so. */
  @Test
  void aMaskWrittenAsAnotherFamilyWritesItIsReadAsTheModelsOwn() {
    assertThat(InputText.masksAsOwn("the [MASK] and [mask] sat .", "<mask>")).isEqualTo("the <mask> and <mask> sat .");
    assertThat(InputText.masksAsOwn("the <mask> sat .", "[MASK]")).isEqualTo("the [MASK] sat .");
    assertThat(InputText.masksAsOwn("the <mask> sat .", "<mask>")).isEqualTo("the <mask> sat .");
    assertThat(InputText.maskRead("the [MASK] sat", "<mask>", "tiny-roberta"))
        .isEqualTo("[MASK] read as <mask>, tiny-roberta's mask token");
    assertThat(InputText.maskRead("the <mask> sat", "<mask>", "tiny-roberta")).isNull();
    assertThat(InputText.maskRead("the [MASK] sat", null, "tiny-gpt2")).contains("tiny-gpt2 has no mask token");
  }

  @Test
  void theNoteNamesCutWordpiecesTheMaskFixAndTheCharactersBehindUnk() {
    Encoding e = new Encoding(List.of("[CLS]", "i", "[UNK]", "it", "[SEP]"), new long[] {101, 1045, 100, 2009, 102},
        new long[5], -1, 12);
    String note = InputText.note(e, 5, InputText.maskRead("the [mask] .", "[MASK]", "bert"), "I 😀 it and so on");
    assertThat(note).contains("12 wordpieces cut").contains("[mask] read as [MASK]").contains("1 × [UNK]")
        .contains("😀");
    Encoding clean = new Encoding(List.of("[CLS]", "it", "[SEP]"), new long[] {101, 2009, 102}, new long[3], -1, 0);
    assertThat(InputText.note(clean, 512, null, "it")).isEmpty();
  }
}
