package io.headscope.model.repository;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model file that is there but is no regular file is named for what it is (issue 39): a named pipe or a
 * symbolic link loop in config.json's place is not "no config.json", and a model path that is a link loop
 * is not "no such model".
 */
class ModelFileKindTest {
  @TempDir Path dir;

  private Path tinyWith(String name) {
    return TinyBert.create(1, 2, 3).writeTo(dir.resolve(name)).config().getParent();
  }

  @Test
  void aNamedPipeInConfigsPlaceIsCalledANamedPipe() throws Exception {
    Path m = tinyWith("fifo-config");
    Files.delete(m.resolve("config.json"));
    assumeTrue(new ProcessBuilder("mkfifo", m.resolve("config.json").toString()).start().waitFor() == 0, "mkfifo");
    assertThatThrownBy(() -> new ModelRepository(dir.resolve("cache")).folder(m))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("config.json is a named pipe (FIFO), not a regular file")
        .hasMessageNotContaining("has no config.json");
  }

  @Test
  void aSymbolicLinkLoopInTheWeightsPlaceIsCalledALoop() throws Exception {
    Path m = tinyWith("loop-weights");
    Path weights = m.resolve("model.safetensors");
    Files.delete(weights);
    Files.createSymbolicLink(weights, m.resolve("other.safetensors"));
    Files.createSymbolicLink(m.resolve("other.safetensors"), weights);
    assertThatThrownBy(() -> new ModelRepository(dir.resolve("cache")).folder(m))
        .hasMessageContaining("model.safetensors is a symbolic link")
        .hasMessageContaining("in a loop")
        .hasMessageNotContaining("has no model.safetensors");
  }

  @Test
  void aModelPathThatIsALinkLoopIsCalledALoop() throws Exception {
    Path a = dir.resolve("a");
    Files.createSymbolicLink(a, dir.resolve("b"));
    Files.createSymbolicLink(dir.resolve("b"), a);
    assertThatThrownBy(() -> new ModelRepository(dir.resolve("cache")).resolve(a.toString(), (s, f) -> { }))
        .hasMessageContaining("in a loop")
        .hasMessageNotContaining("No model");
  }

  /**
   * A folder with vocab.txt alone gets its tokenizer.json built into the cache; a problem with it (here more
   * tokens than config.json's vocab_size) names the user's vocab.txt, not the copy in the cache.
   */
  @Test
  void aProblemWithATokenizerBuiltIntoTheCacheNamesTheUsersVocabulary() throws Exception {
    Path m = tinyWith("vocab-only");
    Files.delete(m.resolve("tokenizer.json"));
    java.util.List<String> vocab = new java.util.ArrayList<>(Files.readAllLines(m.resolve("vocab.txt")));
    for (int i = 0; i < 50; i++) {
      vocab.add("extra" + i); // more tokens than the model's embedding rows
    }
    Files.write(m.resolve("vocab.txt"), vocab);
    Path cache = dir.resolve("cache-vocab");
    var files = new ModelRepository(cache).folder(m);
    assertThat(files.tokenizer()).startsWith(cache);
    assertThatThrownBy(() -> io.headscope.model.BertModel.load(files, null))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining(m.resolve("vocab.txt").toString())
        .hasMessageContaining("tokens but the model's vocabulary has only")
        .hasMessageNotContaining(cache.toString());
  }
}
