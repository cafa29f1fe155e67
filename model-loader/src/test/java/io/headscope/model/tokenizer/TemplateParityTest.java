package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The templates read from the post_processor lay tokens out exactly as Hugging Face's own
 * post-processor does when it adds the special tokens itself (nothing cut): the Rust implementation
 * is the reference for RobertaProcessing, TemplateProcessing and BertProcessing.
 */
class TemplateParityTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0}: {1} / {2}")
  @CsvSource(delimiter = '|', value = {
    "roberta | café 😀 | a b",
    "roberta | a <mask> b | d c",
    "albert | The unseen cat | the [MASK] cat",
    "xlmr | the unseen cat | the <mask> cat",
    "wordpiece | The unseen cats. | [MASK] cat",
    "gpt2 | café 😀 | a b"
  })
  void layoutIsHuggingFacesOwn(String family, String a, String b) throws IOException {
    Map<String, Function<Path, Path>> files = Map.of("roberta", HandTokenizers::roberta,
        "albert", HandTokenizers::albert, "xlmr", HandTokenizers::xlmRoberta, "wordpiece", HandTokenizers::wordPiece, "gpt2", HandTokenizers::gpt2);
    Path json = files.get(family).apply(dir);
    try (HfTextEncoder ours = HfTextEncoder.open(json, 64);
        HuggingFaceTokenizer hf = HuggingFaceTokenizer.newInstance(
            json, Map.of("addSpecialTokens", "true", "truncation", "false", "padding", "false"))) {
      ai.djl.huggingface.tokenizers.Encoding single = hf.encode(a, true, false);
      Encoding e = ours.encode(a);
      assertThat(e.ids()).containsExactly(single.getIds());
      assertThat(e.segments()).containsExactly(single.getTypeIds());

      ai.djl.huggingface.tokenizers.Encoding pair = hf.encode(a, b, true, false);
      Encoding p = ours.encode(a, b);
      assertThat(p.ids()).containsExactly(pair.getIds());
      if (family.equals("gpt2")) {
        // Without a post-processor Hugging Face puts b in type 1; GPT-2 has no segment embedding.
        assertThat(p.segments()).containsOnly(0L);
      } else {
        assertThat(p.segments()).containsExactly(pair.getTypeIds());
      }
      boolean[] special = ours.annotate(a, b).special();
      long[] hfSpecial = pair.getSpecialTokenMask();
      for (int i = 0; i < special.length; i++) {
        assertThat(special[i]).as("token %d special", i).isEqualTo(hfSpecial[i] == 1);
      }
    }
  }
}
