package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** vocab.json + merges.txt become a tokenizer.json that encodes as the hand-written one does. */
class BpeTokenizerJsonTest {
  private static final List<String> TEXTS =
      List.of("café 😀", "a b c d", "a <mask> b", "a, café", "d c", "a<|endoftext|>b");

  @TempDir Path dir;

  private Path pair(String name, Object vocab) throws IOException {
    Path folder = Files.createDirectories(dir.resolve(name));
    HandTokenizers.write(folder.resolve("vocab.json"), vocab);
    List<String> merges = new ArrayList<>();
    merges.add("#version: 0.2");
    merges.addAll(HandTokenizers.MERGES);
    Files.write(folder.resolve("merges.txt"), merges);
    return folder;
  }

  @Test
  void robertaPairEncodesAsTheHandWrittenTokenizer() throws IOException {
    Path folder = pair("roberta", HandTokenizers.robertaVocab());
    Path converted = folder.resolve("tokenizer.json");
    BpeTokenizerJson.write(folder.resolve("vocab.json"), folder.resolve("merges.txt"), converted);
    try (HfTextEncoder made = HfTextEncoder.open(converted, 32);
        HfTextEncoder hand = HfTextEncoder.open(HandTokenizers.roberta(dir), 32)) {
      // "café 😀" worked out in ByteLevelBpeEncoderTest: <s> cafÃ© Ġ ðŁĺ Ģ </s>
      assertThat(made.encode("café 😀").ids()).containsExactly(0, 263, 36, 265, 132, 2);
      assertThat(made.encode("a b", "café").ids()).containsExactly(0, 101, 267, 2, 2, 263, 2);
      assertThat(made.encode("a <mask> b").ids()).containsExactly(0, 101, 270, 267, 2);
      for (String text : TEXTS) {
        assertThat(made.encode(text, text)).usingRecursiveComparison().isEqualTo(hand.encode(text, text));
      }
      assertThat(made.specialIds()).isEqualTo(hand.specialIds());
      assertThat(made.maskId()).isEqualTo(270);
    }
    try (Stream<Path> files = Files.list(folder)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("vocab.json", "merges.txt", "tokenizer.json"); // no temp file left
    }
  }

  @Test
  void gpt2PairHasNoTemplate() throws IOException {
    Path folder = pair("gpt2", HandTokenizers.gpt2Vocab());
    try (TextEncoder made = TextEncoders.open(folder, 16);
        HfTextEncoder hand = HfTextEncoder.open(HandTokenizers.gpt2(dir), 16)) {
      assertThat(Files.isRegularFile(folder.resolve("tokenizer.json"))).isTrue();
      assertThat(made.encode("café 😀").ids()).containsExactly(259, 32, 261, 128);
      for (String text : TEXTS) {
        assertThat(made.encode(text, text)).usingRecursiveComparison().isEqualTo(hand.encode(text, text));
      }
      assertThat(made.maskId()).isEqualTo(TextEncoder.NO_TOKEN);
      assertThat(made.specialIds()).containsExactly(266L);
    }
  }

  @Test
  void badFilesAreRefusedInOneLine() throws IOException {
    Path folder = pair("bad", HandTokenizers.gpt2Vocab());
    Path merges = Files.writeString(folder.resolve("merges.txt"), "#version: 0.2\na b c\n");
    assertThatThrownBy(() -> BpeTokenizerJson.toJson(folder.resolve("vocab.json"), merges))
        .isInstanceOf(HeadScopeException.class)
        .hasMessage(merges + " line 2 is not two tokens separated by one space.");
    Path vocab = Files.writeString(folder.resolve("vocab.json"), "{\"a\": \"x\"}");
    assertThatThrownBy(() -> BpeTokenizerJson.toJson(vocab, merges))
        .isInstanceOf(HeadScopeException.class)
        .hasMessage(vocab + " maps \"a\" to \"x\", not to a token id, so it is not a BPE vocabulary.");
  }
}
