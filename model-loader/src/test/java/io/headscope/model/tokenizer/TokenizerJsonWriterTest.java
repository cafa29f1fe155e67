package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Vocabularies.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizerJsonWriterTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void tinyVocabularyGivesHuggingFacesFileByteForByte() throws IOException {
    Path vocab = dir.resolve("vocab.txt");
    try (InputStream in = resource("tiny-vocab.txt")) {
      Files.copy(in, vocab);
    }
    String expected;
    try (InputStream in = resource("tiny-tokenizer.json")) {
      expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(TokenizerJsonWriter.toJson(vocab, true)).isEqualTo(expected);
  }

  @Test
  void uncasedVocabularyHasBertBaseIdsAndSettings() throws IOException {
    Path vocab = Vocabularies.vocab(Kind.UNCASED).orElseThrow();
    JsonNode root = JSON.readTree(TokenizerJsonWriter.toJson(vocab, true));

    assertThat(root.path("normalizer").path("type").asText()).isEqualTo("BertNormalizer");
    assertThat(root.path("normalizer").path("lowercase").asBoolean()).isTrue();
    assertThat(root.path("normalizer").get("strip_accents").isNull()).isTrue();
    assertThat(root.path("pre_tokenizer").path("type").asText()).isEqualTo("BertPreTokenizer");
    assertThat(root.path("model").path("max_input_chars_per_word").asInt()).isEqualTo(100);
    assertThat(root.path("model").path("unk_token").asText()).isEqualTo("[UNK]");
    assertThat(root.path("post_processor").path("special_tokens").path("[CLS]").path("ids").get(0).asInt())
        .isEqualTo(101);
    assertThat(root.path("post_processor").path("special_tokens").path("[SEP]").path("ids").get(0).asInt())
        .isEqualTo(102);
    List<String> added = new ArrayList<>();
    List<Integer> addedIds = new ArrayList<>();
    root.path("added_tokens").forEach(t -> {
      added.add(t.path("content").asText());
      addedIds.add(t.path("id").asInt());
      assertThat(t.path("special").asBoolean()).isTrue();
      assertThat(t.path("normalized").asBoolean()).isFalse();
    });
    assertThat(added).containsExactly("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]");
    assertThat(addedIds).containsExactly(0, 100, 101, 102, 103);

    List<String> lines = TokenizerJsonWriter.readVocab(vocab);
    assertThat(lines).hasSize(30522);
    JsonNode model = root.path("model").path("vocab");
    assertThat(model.size()).isEqualTo(30522);
    int expectedId = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = model.fields(); it.hasNext(); expectedId++) {
      Map.Entry<String, JsonNode> e = it.next();
      assertThat(e.getValue().asInt()).isEqualTo(expectedId);
      assertThat(e.getKey()).isEqualTo(lines.get(expectedId));
    }
  }

  @Test
  void casedVocabularyNeitherLowercasesNorStripsAccents() throws IOException {
    JsonNode normalizer = JSON.readTree(TokenizerJsonWriter.toJson(List.copyOf(tiny()), false)).path("normalizer");
    assertThat(normalizer.path("lowercase").asBoolean()).isFalse();
    assertThat(normalizer.get("strip_accents").isNull()).isTrue(); // null: follows lowercase
  }

  @Test
  void writeReplacesTheTargetAndLeavesNoTemporaryFile() throws IOException {
    Path vocab = dir.resolve("vocab.txt");
    Files.write(vocab, tiny());
    Path out = dir.resolve("tokenizer.json");
    Files.writeString(out, "old");
    TokenizerJsonWriter.write(vocab, true, out);
    assertThat(Files.readString(out)).isEqualTo(TokenizerJsonWriter.toJson(vocab, true));
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("vocab.txt", "tokenizer.json");
    }
  }

  @Test
  void vocabularyWithoutMaskIsRefused() {
    List<String> vocab = new ArrayList<>(tiny());
    vocab.remove("[MASK]");
    assertThatThrownBy(() -> TokenizerJsonWriter.toJson(vocab, true))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("[MASK]");
  }

  @Test
  void repeatedTokenKeepsItsLastIdAsPythonDictDoes() throws IOException {
    List<String> vocab = new ArrayList<>(tiny());
    vocab.add("hello");
    JsonNode model = JSON.readTree(TokenizerJsonWriter.toJson(vocab, true)).path("model").path("vocab");
    assertThat(model.path("hello").asInt()).isEqualTo(vocab.size() - 1);
  }

  @Test
  void windowsLineEndsAreLineEnds() throws IOException {
    Path vocab = dir.resolve("vocab.txt");
    Files.writeString(vocab, String.join("\r\n", tiny()) + "\r\n");
    assertThat(TokenizerJsonWriter.readVocab(vocab)).isEqualTo(tiny());
  }

  @Test
  void nonUtf8VocabularyIsAUserError() throws IOException {
    Path vocab = dir.resolve("vocab.txt");
    Files.write(vocab, new byte[] {'[', 'P', 'A', 'D', ']', '\n', (byte) 0xC3, (byte) 0x28, '\n'});
    assertThatThrownBy(() -> TokenizerJsonWriter.readVocab(vocab))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("not UTF-8");
  }

  private static List<String> tiny() {
    return List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "##s");
  }

  private static InputStream resource(String name) {
    InputStream in = TokenizerJsonWriterTest.class.getResourceAsStream("/tokenizer/" + name);
    assertThat(in).as(name).isNotNull();
    return in;
  }
}
