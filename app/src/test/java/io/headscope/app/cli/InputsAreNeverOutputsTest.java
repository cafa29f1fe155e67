package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An output that is one of the run's inputs (the same file, also through a link) is refused, --force or not. */
class InputsAreNeverOutputsTest extends OnTinyModel {
  @Test
  void anAblationCannotReplaceItsCorpusWithItsCsv() throws Exception {
    Path corpus = Files.write(dir.resolve("corpus.txt"), List.of("the cat sat on the mat .", "the dog ran ."));
    byte[] before = Files.readAllBytes(corpus);
    CliHarness.Result r = CliHarness.run("ablate", "--model", model.toString(), "--corpus", corpus.toString(),
        "--out", corpus.toString(), "--force");
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).anyMatch(l -> l.contains("is one of this run's inputs"));
    assertThat(Files.readAllBytes(corpus)).isEqualTo(before);
  }

  @Test
  void norThroughASymbolicLinkOrAHardLink() throws Exception {
    Path corpus = Files.write(dir.resolve("linked.txt"), List.of("the cat sat on the mat ."));
    byte[] before = Files.readAllBytes(corpus);
    Path hard = Files.createLink(dir.resolve("hard.txt"), corpus);
    for (Path out : List.of(hard)) {
      CliHarness.Result r = CliHarness.run("classify", "--model", model.toString(), "--corpus", corpus.toString(),
          "--out", out.toString(), "--force");
      assertThat(r.exit()).as(r.err()).isEqualTo(1);
      assertThat(r.errLines()).anyMatch(l -> l.contains("is one of this run's inputs"));
    }
    assertThat(Files.readAllBytes(corpus)).isEqualTo(before);
    // a corpus named through a symbolic link is the file it points to
    Path soft = Files.createSymbolicLink(dir.resolve("soft.txt"), corpus);
    CliHarness.Result r = CliHarness.run("classify", "--model", model.toString(), "--corpus", soft.toString(),
        "--out", corpus.toString(), "--force");
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(Files.readAllBytes(corpus)).isEqualTo(before);
  }

  @Test
  void aMergeCannotReplaceAPartItIsMerging() throws Exception {
    Path corpus = Files.write(dir.resolve("shards.txt"), List.of("the cat sat .", "a dog ran .", "the sun rose ."));
    Path part0 = dir.resolve("part0.jsonl");
    Path part1 = dir.resolve("part1.jsonl");
    for (int k = 0; k < 2; k++) {
      CliHarness.Result r = CliHarness.run("classify", "--model", model.toString(), "--corpus", corpus.toString(),
          "--shard", k + "/2", "--out", (k == 0 ? part0 : part1).toString());
      assertThat(r.exit()).as(r.err()).isZero();
    }
    byte[] before = Files.readAllBytes(part0);
    CliHarness.Result r = CliHarness.run("merge", "--force", "--out", part0.toString(), part0.toString(),
        part1.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).anyMatch(l -> l.contains("is one of this run's inputs"));
    assertThat(Files.readAllBytes(part0)).isEqualTo(before);
    // and the protection ends with the run: the same name is a fine output for the next one
    Path merged = dir.resolve("merged.csv");
    assertThat(CliHarness.run("merge", "--out", merged.toString(), part0.toString(), part1.toString()).exit()).isZero();
    assertThat(CliHarness.run("classify", "--model", model.toString(), "--text", "a cat .", "--out",
        part0.toString(), "--force").exit()).isZero();
  }

  // --- issue 39 (G04, G09): the model folder, a second model and the head-sets file are inputs too ---

  /** A copy of the tiny model in a folder of its own, so a test that fails cannot damage the shared one. */
  private static Path modelCopy(String name) throws Exception {
    Path copy = Files.createDirectory(dir.resolve(name));
    try (var files = Files.list(model)) {
      for (Path f : files.toList()) {
        if (Files.isRegularFile(f)) {
          Files.copy(f, copy.resolve(f.getFileName()));
        }
      }
    }
    return copy;
  }

  private static java.util.Map<String, byte[]> contents(Path folder) throws Exception {
    java.util.Map<String, byte[]> m = new java.util.TreeMap<>();
    try (var files = Files.list(folder)) {
      for (Path f : files.toList()) {
        m.put(f.getFileName().toString(), Files.readAllBytes(f));
      }
    }
    return m;
  }

  @Test
  void noOutputReplacesTheModelsOwnFilesForceOrNot() throws Exception {
    Path m = modelCopy("own-files");
    var before = contents(m);
    Path corpus = Files.write(dir.resolve("own-files.txt"), List.of("the cat sat on the mat ."));
    List<List<String>> runs = List.of(
        List.of("ablate", "--model", m.toString(), "--corpus", corpus.toString(), "--out",
            m.resolve("model.safetensors").toString(), "--force"),
        List.of("attention", "--model", m.toString(), "--text", "hi", "--out", m.resolve("config.json").toString(),
            "--force"),
        List.of("html", "--model", m.toString(), "--text", "a [MASK] .", "--out",
            m.resolve("tokenizer.json").toString(), "--force"),
        // a new file inside the folder is refused too: the folder is the model's
        List.of("attention", "--model", m.toString(), "--text", "hi", "--out", m.resolve("new.json").toString()),
        // and through a symbolic link to the folder
        List.of("attention", "--model", m.toString(), "--text", "hi", "--out",
            Files.createSymbolicLink(dir.resolve("own-files-link"), m).resolve("config.json").toString(), "--force"));
    for (List<String> args : runs) {
      CliHarness.Result r = CliHarness.run(args.toArray(String[]::new));
      assertThat(r.exit()).as(args + ": " + r.err()).isEqualTo(1);
      assertThat(r.errLines()).as(args.toString()).singleElement().asString().contains("inside the model folder");
    }
    assertThat(contents(m)).as("the model folder, byte for byte").containsExactlyEntriesOf(before);
  }

  @Test
  void compareCannotReplaceTheSecondModelsWeights() throws Exception {
    Path b = modelCopy("second-model");
    var before = contents(b);
    CliHarness.Result r = CliHarness.run("compare", "--model", model.toString(), "--with", b.toString(), "--text",
        "the cat sat .", "--out", b.resolve("model.safetensors").toString(), "--force");
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("inside the model folder");
    assertThat(contents(b)).containsExactlyEntriesOf(before);
  }

  @Test
  void aFineTuningCannotWriteItsClassifierOverTheModelItTrainsFrom() throws Exception {
    Path m = modelCopy("finetune-source");
    var before = contents(m);
    Path train = Files.write(dir.resolve("finetune-train.txt"),
        List.of("the cat sat .\tcat", "the car ran .\tcar", "a cat sat .\tcat", "a car ran .\tcar"));
    CliHarness.Result r = CliHarness.run("finetune", "--model", m.toString(), "--train", train.toString(),
        "--epochs", "1", "--out", m.toString(), "--force");
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("inside the model folder");
    assertThat(contents(m)).containsExactlyEntriesOf(before);
  }

  @Test
  void noOutputReplacesTheHeadSetsFile() throws Exception {
    Path sets = Files.writeString(dir.resolve("head-sets.txt"), "gender: 1-2\n");
    byte[] before = Files.readAllBytes(sets);
    String old = System.getProperty("headscope.headsets");
    System.setProperty("headscope.headsets", sets.toString());
    try {
      for (List<String> args : List.of(
          List.of("html", "--model", model.toString(), "--text", "a [MASK] .", "--disable", "@gender", "--out",
              sets.toString(), "--force"),
          // read or not, the sets are the user's work
          List.of("attention", "--model", model.toString(), "--text", "hi", "--out", sets.toString(), "--force"))) {
        CliHarness.Result r = CliHarness.run(args.toArray(String[]::new));
        assertThat(r.exit()).as(args + ": " + r.err()).isEqualTo(1);
        assertThat(r.err()).contains("is one of this run's inputs");
      }
    } finally {
      if (old == null) {
        System.clearProperty("headscope.headsets");
      } else {
        System.setProperty("headscope.headsets", old);
      }
    }
    assertThat(Files.readAllBytes(sets)).isEqualTo(before);
  }

  @Test
  void noOutputGoesIntoTheModelCache() throws Exception {
    Path cache = dir.resolve("cache");
    Path models = Files.createDirectories(cache.resolve("models-v1"));
    String old = System.getProperty("headscope.cache");
    System.setProperty("headscope.cache", cache.toString());
    try {
      CliHarness.Result r = CliHarness.run("attention", "--model", model.toString(), "--text", "hi", "--out",
          models.resolve("out.json").toString());
      assertThat(r.exit()).as(r.err()).isEqualTo(1);
      assertThat(r.err()).contains("inside HeadScope's model cache");
      assertThat(models.resolve("out.json")).doesNotExist();
      // beside the cache's folders is no input of the run
      CliHarness.Result beside = CliHarness.run("attention", "--model", model.toString(), "--text", "hi", "--out",
          cache.resolve("beside.json").toString());
      assertThat(beside.exit()).as(beside.err()).isZero();
    } finally {
      if (old == null) {
        System.clearProperty("headscope.cache");
      } else {
        System.setProperty("headscope.cache", old);
      }
    }
  }
}
