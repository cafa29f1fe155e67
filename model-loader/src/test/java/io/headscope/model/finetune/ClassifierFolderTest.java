package io.headscope.model.finetune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.engine.FineTuneOptions;
import io.headscope.model.engine.Trainer;
import io.headscope.model.store.AtomicOutput;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import io.headscope.model.testing.TinyBert;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where and how a fine-tuned model is written: never into the model cache, which only the cache writes;
 * into the user's folder without deleting what else is there; never over a folder another run made
 * meanwhile; and a killed write's staging folder swept by the next.
 */
class ClassifierFolderTest {
  @TempDir Path dir;
  @TempDir static Path models;
  static ModelFiles tiny;

  @BeforeAll
  static void writeModel() {
    tiny = TinyBert.create(2, 2, 3).writeTo(models.resolve("tiny"));
  }

  private static Trainer trainer() {
    try (Safetensors st = Safetensors.open(tiny.weights())) {
      return Trainer.start(BertConfig.read(tiny.config()), st, List.of("neg", "pos"),
          new FineTuneOptions(1, 1e-3, 4, 0.1, 0.01, 0.1, 1), 4);
    }
  }

  @Test
  void forceReplacesTheModelsFilesAndKeepsEverythingElseInTheFolder() throws Exception {
    Path out = dir.resolve("tuned");
    try (Trainer t = trainer()) {
      ClassifierFolder.write(t, tiny, out);
    }
    byte[] first = Files.readAllBytes(out.resolve("model.safetensors"));
    Files.writeString(out.resolve("notes.md"), "what I tried");
    Files.createDirectories(out.resolve("eval")).resolve("scores.csv").toFile().createNewFile();
    Path train = Files.writeString(out.resolve("train.tsv"), "a cat .\tpos\n");
    try (Trainer t = trainer()) {
      ClassifierFolder.check(out, true);
      ClassifierFolder.writer(out, true).write(t, tiny);
    }
    assertThat(out.resolve("notes.md")).hasContent("what I tried");
    assertThat(out.resolve("eval").resolve("scores.csv")).exists();
    assertThat(train).hasContent("a cat .\tpos");
    assertThat(out.resolve("config.json")).exists();
    assertThat(Files.readAllBytes(out.resolve("model.safetensors"))).isNotEmpty();
    try (var entries = Files.list(out)) {
      assertThat(entries.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("."));
    }
    assertThat(first).isNotEmpty();
  }

  @Test
  void aFolderThatAppearedMeanwhileIsNotReplacedWithoutForce() throws Exception {
    Path out = dir.resolve("race");
    ClassifierFolder.check(out, false); // both runs pass the early check
    ClassifierFolder.Writer second = ClassifierFolder.writer(out, false);
    try (Trainer t = trainer()) {
      ClassifierFolder.writer(out, false).write(t, tiny); // the first run finishes its epoch first
      byte[] firsts = Files.readAllBytes(out.resolve("model.safetensors"));
      assertThatThrownBy(() -> second.write(t, tiny)).isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("already exists (another run wrote it meanwhile)");
      assertThat(Files.readAllBytes(out.resolve("model.safetensors"))).isEqualTo(firsts);
    }
  }

  @Test
  void aKilledWritesStagingFolderIsSweptByTheNextWrite() throws Exception {
    Path out = dir.resolve("swept");
    try (Trainer t = trainer()) {
      ClassifierFolder.Writer w = ClassifierFolder.writer(out, false);
      w.write(t, tiny);
      // what a SIGKILL in the middle of a write leaves: the staging folder of a process that is gone
      String mine = AtomicOutput.temporaryName("model"); // .model.headscope-MACHINE-PID-N.part
      String dead = mine.replaceFirst("-" + ProcessHandle.current().pid() + "-", "-99999999-");
      Path leftover = Files.createDirectories(out.resolve(dead));
      Files.write(leftover.resolve("model.safetensors"), new byte[1 << 16]);
      w.write(t, tiny);
      assertThat(leftover).doesNotExist();
    }
  }

  @Test
  void theCachedEmbeddedModelsFolderIsRefusedEvenWithForce() {
    Path cached = ModelRepository.standard().cacheRoot().resolve("models-v1").resolve("bert-base-uncased");
    assertThatThrownBy(() -> ModelRepository.standard().refuseInside(cached)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("inside HeadScope's model cache");
  }

  @Test
  void soIsAFolderReachedThroughALinkIntoTheCache() throws Exception {
    Path cache = ModelRepository.standard().cacheRoot();
    Files.createDirectories(cache);
    Path link = Files.createSymbolicLink(dir.resolve("cache-link"), cache);
    assertThatThrownBy(() -> ModelRepository.standard().refuseInside(link.resolve("tuned")))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("inside HeadScope's model cache");
  }
}
