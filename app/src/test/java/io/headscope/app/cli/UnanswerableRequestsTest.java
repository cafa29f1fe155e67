package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Inputs and options that cannot answer the question asked say so before the model loads, and write
 * nothing: a treebank without coreference, a feature count given twice.
 */
class UnanswerableRequestsTest extends OnTinyModel {
  @Test
  void coreferenceOnATreebankWithoutEntitiesIsRefused() throws Exception {
    Path treebank = Files.write(dir.resolve("plain.conllu"), List.of(
        "1\tThe\tthe\tDET\t_\t_\t2\tdet\t_\t_",
        "2\tcat\tcat\tNOUN\t_\t_\t3\tnsubj\t_\t_",
        "3\tsat\tsit\tVERB\t_\t_\t0\troot\t_\t_",
        ""));
    Path out = dir.resolve("coref.csv");
    CliHarness.Result r = CliHarness.run("coref", "--model", model.toString(), "--out", out.toString(),
        "--treebank", treebank.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).anyMatch(l -> l.contains("has no coreference annotation"));
    assertThat(out).doesNotExist();
    assertThat(dir.resolve("coref-baselines.csv")).doesNotExist();
  }

  @Test
  void favorWithAFeatureCountGivenTwiceIsABadCommandLine() {
    // it wrote every row of that m twice
    Path out = dir.resolve("favor.csv");
    CliHarness.Result r = CliHarness.run("favor", "--model", model.toString(), "--text", "the cat sat .",
        "--features", "16,16", "--draws", "1", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(2);
    assertThat(r.errLines()).anyMatch(l -> l.contains("--features names a number twice (16,16)"));
    assertThat(out).doesNotExist();
  }

  @Test
  void aProbeTrainingFileTooSmallIsRefusedBeforeTheMainAnalysis() throws Exception {
    Path treebank = Files.write(dir.resolve("main.conllu"), List.of(
        "1\tThe\tthe\tDET\t_\t_\t2\tdet\t_\t_",
        "2\tdog\tdog\tNOUN\t_\t_\t3\tnsubj\t_\t_",
        "3\tran\trun\tVERB\t_\t_\t0\troot\t_\t_",
        ""));
    Path small = Files.write(dir.resolve("one.conllu"), List.of(
        "1\tThe\tthe\tDET\t_\t_\t2\tdet\t_\t_",
        "2\tcat\tcat\tNOUN\t_\t_\t0\troot\t_\t_",
        ""));
    Path out = dir.resolve("syntax.csv");
    CliHarness.Result r = CliHarness.run("syntax", "--model", model.toString(), "--treebank", treebank.toString(),
        "--probe-train", small.toString(), "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).anyMatch(l -> l.contains("has 1 sentence(s) of two words or more"));
    assertThat(r.errLines()).as("no analysis ran").noneMatch(l -> l.startsWith("headscope: syntax"));
    assertThat(out).doesNotExist();
  }

  @Test
  void anOutputNameTooLongForItsTemporaryOrSidecarIsRefusedBeforeTheWork() throws Exception {
    // 235 bytes fit the file system, but the sidecar's temporary beside it is about 50 bytes longer
    Path out = dir.resolve("a".repeat(231) + ".csv");
    CliHarness.Result r = CliHarness.run("ablate", "--model", model.toString(), "--text", "the cat sat .",
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).anyMatch(l -> l.contains("too long"));
    assertThat(r.errLines()).as("before the sweep").noneMatch(l -> l.startsWith("headscope: ablate"));
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("aaaa"));
    }
  }

  @Test
  void aFineTunedModelFolderMayHaveALongName() throws Exception {
    // its staging folder is inside it, so the name has the whole 255 bytes (a temporary beside it did not)
    Path train = Files.write(dir.resolve("train.tsv"), List.of("the cat sat .\tcat", "the car ran .\tcar",
        "a cat sat .\tcat", "a car ran .\tcar"));
    Path out = dir.resolve("m".repeat(250));
    CliHarness.Result r = CliHarness.run("finetune", "--model", model.toString(), "--train", train.toString(),
        "--epochs", "1", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(out.resolve("model.safetensors")).exists();
  }

  @Test
  void aShardCountPastAMillionIsRefusedWithAMessageThatSaysSo() {
    CliHarness.Result r = CliHarness.run("classify", "--model", model.toString(), "--corpus",
        dir.resolve("any.txt").toString(), "--shard", "0/2147483647");
    assertThat(r.exit()).as(r.err()).isEqualTo(2);
    assertThat(r.errLines()).anyMatch(l -> l.contains("N must be at most 1000000"));
  }

  @Test
  void aPairCutToFitSaysTheFirstSentenceMayBeCutToo() {
    // the first sentence is the longer one: BERT cuts its end, not the second's
    String a = "word ".repeat(600);
    CliHarness.Result r = CliHarness.run("attention", "--model", model.toString(), "--text", a, "--pair", "a cat .");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.errLines()).anyMatch(l -> l.contains("from the end of whichever sentence was longer"));
    assertThat(r.errLines()).noneMatch(l -> l.endsWith("dropped from the end."));
  }
}
