package io.headscope.model.finetune;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.HeadScopeException;
import io.headscope.model.store.ModelRepository;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a fine-tuned model may be written: never into the model cache, which only the cache writes. */
class ClassifierFolderTest {
  @TempDir Path dir;

  @Test
  void theCachedEmbeddedModelsFolderIsRefusedEvenWithForce() {
    Path cached = ModelRepository.standard().cacheRoot().resolve("models-v1").resolve("bert-base-uncased");
    assertThatThrownBy(() -> ClassifierFolder.check(cached, true)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("inside HeadScope's model cache");
  }

  @Test
  void soIsAFolderReachedThroughALinkIntoTheCache() throws Exception {
    Path cache = ModelRepository.standard().cacheRoot();
    Files.createDirectories(cache);
    Path link = Files.createSymbolicLink(dir.resolve("cache-link"), cache);
    assertThatThrownBy(() -> ClassifierFolder.check(link.resolve("tuned"), true))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("inside HeadScope's model cache");
  }
}
