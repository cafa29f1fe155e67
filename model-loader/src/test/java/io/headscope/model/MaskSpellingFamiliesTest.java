package io.headscope.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import io.headscope.model.tokenizer.TextEncoder;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 40: the mask as a person writes it, on every family. BERT's {@code [MASK]} typed for a RoBERTa was
 * seven pieces {@code [ M A S K ]}; either spelling is now the model's own mask token (one position, the
 * tokenizer's mask id), and a model without one (GPT-2) reads the text as written.
 */
class MaskSpellingFamiliesTest {
  @TempDir static Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"bert", "roberta", "xlm-roberta", "distilbert", "electra", "albert", "gpt2"})
  void eitherSpellingIsTheModelsOwnMaskToken(String family) {
    try (BertModel m = BertModel.load(FamilyModelFolders.write(family, dir.resolve(family), 3))) {
      TextEncoder t = m.tokenizer();
      long mask = t.maskId();
      if (mask == TextEncoder.NO_TOKEN) {
        assertThat(m.maskToken()).isNull();
        // no mask token: the text is read as written, [MASK] as its characters
        assertThat(m.encode("the [MASK] sat", null).ids()).containsExactly(t.encode("the [MASK] sat").ids());
        return;
      }
      // the model's own spelling, straight from its tokenizer: one token with the mask id
      String own = t.vocabToken(mask).strip();
      assertThat(m.maskToken()).isEqualTo(own);
      Encoding reference = t.encode("the " + own + " sat");
      assertThat(Arrays.stream(reference.ids()).filter(id -> id == mask).count()).isEqualTo(1);
      for (String written : new String[] {"[MASK]", "<mask>"}) {
        Encoding e = m.encode("the " + written + " sat", null);
        assertThat(e.ids()).as("%s written as %s", family, written).containsExactly(reference.ids());
        assertThat(e.tokens()).isEqualTo(reference.tokens());
      }
      if (m.config().family().hasTokenTypes() || family.equals("roberta")) {
        // and in the second sentence of a pair
        Encoding pair = m.encode("the cat", "it [MASK] .");
        assertThat(pair.ids()).containsExactly(t.encode("the cat", "it " + own + " .").ids());
      }
    }
  }
}
