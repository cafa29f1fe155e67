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
}
