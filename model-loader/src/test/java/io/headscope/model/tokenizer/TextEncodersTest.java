package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The factory picks an encoder per tokenizer and refuses, in one line naming the file, what it cannot read. */
class TextEncodersTest {
  @TempDir Path dir;

  @Test
  void picksTheEncoderOfEachFamily() throws IOException {
    try (TextEncoder roberta = TextEncoders.open(HandTokenizers.roberta(dir), 32);
        TextEncoder albert = TextEncoders.open(HandTokenizers.albert(dir), 32);
        TextEncoder bert = TextEncoders.open(HandTokenizers.wordPiece(dir), 32)) {
      assertThat(roberta).isInstanceOf(HfTextEncoder.class);
      assertThat(albert).isInstanceOf(HfTextEncoder.class);
      assertThat(bert).isInstanceOf(BertTextEncoder.class);
    }
  }

  @Test
  void folderWithATokenizerJsonAndAKnownModelType() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("albert"));
    Files.copy(HandTokenizers.albert(dir), folder.resolve("tokenizer.json"));
    Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"albert\"}");
    try (TextEncoder enc = TextEncoders.open(folder, 32)) {
      assertThat(enc.encode("the cat").ids()).containsExactly(2, 14, 15, 3);
    }
  }

  @Test
  void folderWithOnlyAVocabTxtGetsABertTokenizer() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("bert"));
    Files.write(folder.resolve("vocab.txt"), List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "cat"));
    try (TextEncoder enc = TextEncoders.open(folder, 32)) {
      assertThat(enc.encode("Cat").ids()).containsExactly(2, 5, 3);
    }
    assertThat(folder.resolve("tokenizer.json")).exists();
  }

  @Test
  void missingTokenizerFile() {
    Path nope = dir.resolve("nope.json");
    assertRefused(() -> TextEncoders.open(nope, 32), "The tokenizer file " + nope + " does not exist.");
  }

  @Test
  void corruptTokenizerFile() throws IOException {
    Path broken = Files.writeString(dir.resolve("tokenizer.json"), "{\"model\": ");
    assertRefused(() -> TextEncoders.open(broken, 32),
        broken + " is not valid JSON, so it is not a tokenizer.json.");
    Path noVocab = Files.writeString(dir.resolve("novocab.json"), "{\"model\": {\"type\": \"BPE\"}}");
    assertRefused(() -> TextEncoders.open(noVocab, 32),
        noVocab + " has no vocabulary (model.vocab), so it is not a tokenizer.json.");
  }

  @Test
  void unsupportedTokenizerModel() throws IOException {
    Path wordLevel = Files.writeString(dir.resolve("wl.json"),
        "{\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"a\": 0}, \"unk_token\": \"a\"}}");
    assertRefused(() -> TextEncoders.open(wordLevel, 32), wordLevel
        + " uses a tokenizer model of type \"WordLevel\"; HeadScope reads WordPiece, BPE and Unigram tokenizers.");
  }

  @Test
  void unsupportedPostProcessor() throws IOException {
    String json = Files.readString(HandTokenizers.roberta(dir)).replace("RobertaProcessing", "FancyProcessing");
    Path fancy = Files.writeString(dir.resolve("fancy.json"), json);
    assertRefused(() -> TextEncoders.open(fancy, 32),
        fancy + " has a post_processor of type \"FancyProcessing\", which HeadScope does not read.");
  }

  @Test
  void unsupportedModelKind() throws IOException {
    // (T5 was the example here until issue 41 made it a family HeadScope reads)
    Path folder = Files.createDirectories(dir.resolve("mamba"));
    Files.copy(HandTokenizers.albert(dir), folder.resolve("tokenizer.json"));
    Path config = Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"mamba\"}");
    assertRefused(() -> TextEncoders.open(folder, 32), config
        + " is a \"mamba\" model; HeadScope reads albert, bart, bert, distilbert, electra, gemma, gpt2, gpt_neox, llama, mistral, modernbert, mt5, qwen2, roberta, t5, xlm-roberta.");
  }

  @Test
  void folderWithoutATokenizer() throws IOException {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    assertRefused(() -> TextEncoders.open(empty, 32),
        empty + " has no tokenizer: no tokenizer.json, vocab.json + merges.txt or vocab.txt.");
    Files.writeString(empty.resolve("vocab.json"), "{}");
    assertRefused(() -> TextEncoders.open(empty, 32),
        empty + " has vocab.json but no merges.txt beside it, so its tokenizer is incomplete.");
  }

  @Test
  void tokenizerHuggingFaceRejects() throws IOException {
    // Valid JSON that HeadScope can read but Hugging Face cannot build: a merge of unknown tokens.
    Path bad = HandTokenizers.write(dir.resolve("bad.json"), java.util.Map.of(
        "model", java.util.Map.of("type", "BPE", "vocab", java.util.Map.of("a", 0), "merges", List.of("x y"))));
    assertThatThrownBy(() -> TextEncoders.open(bad, 32))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageStartingWith("Cannot load the tokenizer " + bad + ": ")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  private static void assertRefused(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
    assertThatThrownBy(call).isInstanceOf(HeadScopeException.class).hasMessage(message);
    assertThat(message).doesNotContain("\n");
  }
}
