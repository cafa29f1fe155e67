package io.headscope.model.repository;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.CacheManifest;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.testing.TinyOnnxBert;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An ONNX file becomes a model folder whole or not at all. */
class OnnxConversionTest {
  @TempDir Path in;
  @TempDir Path outParent;

  private Path tokenizer() throws IOException {
    Path t = in.resolve("tokenizer.json");
    try (InputStream s = getClass().getClassLoader().getResourceAsStream("all-minilm-l6-v2-tokenizer.json")) {
      Files.copy(s, t);
    }
    return t;
  }

  private List<String> leftovers() throws IOException {
    try (Stream<Path> s = Files.list(outParent)) {
      return s.map(p -> p.getFileName().toString()).toList();
    }
  }

  @Test
  void refusesATokenizerLargerThanTheEmbeddingsAndWritesNothing() throws IOException {
    Path onnx = Files.write(in.resolve("tiny.onnx"), TinyOnnxBert.model(TinyOnnxBert.Variant.EXPORT));
    // the tiny graph embeds 10 tokens: a tokenizer of 30522 is refused, naming both files
    assertThatThrownBy(() -> OnnxConversion.toFolder(onnx, tokenizer(), outParent.resolve("m"), ProgressListener.NONE))
        .hasMessage(in.resolve("tokenizer.json") + " has 30522 tokens but " + onnx + " embeds only 10.");
    assertThat(leftovers()).isEmpty();
  }

  @Test
  @Tag("full-model") // reads the 90 MB file
  void convertsTheRealFileIntoAFolderTheCacheTrusts() throws IOException {
    Path onnx = realOnnx();
    Path target = outParent.resolve("minilm");
    OnnxConversion.toFolder(onnx, tokenizer(), target, ProgressListener.NONE);
    assertThat(leftovers()).containsExactly("minilm");
    assertThat(CacheManifest.check(target, List.of("config.json", "model.safetensors", "tokenizer.json",
        "tokenizer_config.json", "vocab.txt"), List.of())).isEmpty();
    assertThat(BertConfig.read(target.resolve("config.json")).numAttentionHeads()).isEqualTo(12);
    assertThat(Files.readAllLines(target.resolve("vocab.txt"))).hasSize(30522).startsWith("[PAD]");
  }

  @Test
  @Tag("full-model")
  void refusesTruncatedAndCorruptFilesInOneLineAndWritesNothing() throws IOException {
    byte[] full = Files.readAllBytes(realOnnx());
    byte[] corrupt = full.clone();
    Arrays.fill(corrupt, 40, 60, (byte) 0xff); // inside the graph's first node: no longer the wire format
    List<byte[]> bad = List.of(Arrays.copyOf(full, full.length / 2), Arrays.copyOf(full, full.length - 3),
        Arrays.copyOf(full, 30), corrupt);
    Path tokenizer = tokenizer();
    for (int i = 0; i < bad.size(); i++) {
      Path onnx = Files.write(in.resolve("bad" + i + ".onnx"), bad.get(i));
      Path target = outParent.resolve("m" + i);
      assertThatThrownBy(() -> OnnxConversion.toFolder(onnx, tokenizer, target, ProgressListener.NONE))
          .as("bad%d", i)
          .isInstanceOf(HeadScopeException.class)
          .hasMessageStartingWith(onnx + " is not a complete ONNX")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
      assertThat(leftovers()).as("bad%d", i).isEmpty();
    }
  }

  @Test
  @Tag("full-model")
  void anOnnxFileIsConvertedOnceIntoTheCacheWithTheTokenizerOfTheFolderAbove(@TempDir Path cache) throws IOException {
    Path onnx = in.resolve("onnx").resolve("model.onnx"); // the Hugging Face Hub's layout
    Files.createDirectories(onnx.getParent());
    Files.move(realOnnx(), onnx);
    tokenizer();
    ModelRepository repo = new ModelRepository(cache);
    ModelFiles files = repo.resolve(onnx.toString(), ProgressListener.NONE);
    assertThat(files.name()).isEqualTo("model.onnx");
    assertThat(files.weights().getParent().getParent()).isEqualTo(cache.resolve("models-v1").resolve("onnx"));
    long written = Files.getLastModifiedTime(files.weights()).toMillis();
    assertThat(repo.resolve(onnx.toString(), ProgressListener.NONE)).isEqualTo(files);
    assertThat(Files.getLastModifiedTime(files.weights()).toMillis()).isEqualTo(written);
    Files.delete(in.resolve("tokenizer.json"));
    Path elsewhere = Files.copy(onnx, Files.createDirectories(outParent.resolve("a")).resolve("lonely.onnx"));
    assertThatThrownBy(() -> repo.resolve(elsewhere.toString(), ProgressListener.NONE))
        .hasMessageStartingWith(elsewhere + " has no tokenizer.json beside it");
  }

  private Path realOnnx() throws IOException {
    Path p = in.resolve("model.onnx");
    try (InputStream s = getClass().getClassLoader().getResourceAsStream(OnnxConversion.MINILM_ONNX)) {
      Files.copy(s, p);
    }
    return p;
  }
}
