package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.SpecialTemplate.Sentence;
import io.headscope.model.tokenizer.SpecialTemplate.Special;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The post-processors that the hand-made tokenizers do not use. */
class SpecialTemplateTest {
  private static final Path FILE = Path.of("tokenizer.json");

  private static SpecialTemplate parse(String json, Map<String, Long> ids) throws IOException {
    return SpecialTemplate.of(new ObjectMapper().readTree(json), ids::get, FILE);
  }

  @Test
  void bertProcessingPutsBAndItsSepInSegmentOne() throws IOException {
    SpecialTemplate t = parse(
        "{\"type\": \"BertProcessing\", \"sep\": [\"[SEP]\", 3], \"cls\": [\"[CLS]\", 2]}", Map.of());
    assertThat(t.pair()).containsExactly(new Special("[CLS]", 2, 0), new Sentence(true, 0),
        new Special("[SEP]", 3, 0), new Sentence(false, 1), new Special("[SEP]", 3, 1));
    assertThat(t.specialCount(false)).isEqualTo(2);
  }

  /** Newer tokenizers chain ByteLevel (offsets only) and a template: the template is the layout. */
  @Test
  void sequenceOfByteLevelAndTemplateUsesTheTemplate() throws IOException {
    SpecialTemplate t = parse("{\"type\": \"Sequence\", \"processors\": ["
        + "{\"type\": \"ByteLevel\", \"trim_offsets\": false},"
        + "{\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": \"<bos>\", \"type_id\": 0}},"
        + " {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}],"
        + " \"pair\": [{\"SpecialToken\": {\"id\": \"<bos>\", \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}},"
        + " {\"SpecialToken\": {\"id\": \"<bos>\", \"type_id\": 1}}, {\"Sequence\": {\"id\": \"B\", \"type_id\": 1}}],"
        + " \"special_tokens\": {}}]}", Map.of("<bos>", 7L));
    assertThat(t.single()).containsExactly(new Special("<bos>", 7, 0), new Sentence(true, 0));
    assertThat(t.pair()).containsExactly(new Special("<bos>", 7, 0), new Sentence(true, 0),
        new Special("<bos>", 7, 1), new Sentence(false, 1));
  }

  @Test
  void aPairTemplateWithoutBIsRefused() {
    assertThatThrownBy(() -> parse("{\"type\": \"TemplateProcessing\","
        + " \"single\": [{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}],"
        + " \"pair\": [{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], \"special_tokens\": {}}", Map.of()))
        .isInstanceOf(HeadScopeException.class)
        .hasMessage("tokenizer.json has a post_processor template with $A where HeadScope expects $A $B.");
  }

  @Test
  void noPostProcessorIsNoSpecialToken() throws IOException {
    assertThat(parse("null", Map.of())).isSameAs(SpecialTemplate.NONE);
    assertThat(SpecialTemplate.NONE.specialCount(true)).isZero();
  }
}
