package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Shards know their model by its files, not its folder's name. */
class ShardIdentityTest extends OnTinyModel {
  @Test
  void shardsOfTwoCheckpointsCalledAlikeAreNotMerged() throws Exception {
    // two different checkpoints, each in a folder called tiny-mlm (two machines, or one folder retrained)
    Path one = TinyBert.create(2, 2, 3).writeTo(dir.resolve("a").resolve("tiny-mlm")).config().getParent();
    Path two = TinyBert.create(2, 2, 4).writeTo(dir.resolve("b").resolve("tiny-mlm")).config().getParent();
    Path corpus = Files.write(dir.resolve("corpus.txt"), List.of("the cat sat .", "a dog ran .", "the sun rose ."));
    Path p0 = dir.resolve("p0.jsonl");
    Path p1 = dir.resolve("p1.jsonl");
    assertThat(CliHarness.run("ablate", "--model", one.toString(), "--corpus", corpus.toString(), "--shard", "0/2",
        "--out", p0.toString()).exit()).isZero();
    assertThat(CliHarness.run("ablate", "--model", two.toString(), "--corpus", corpus.toString(), "--shard", "1/2",
        "--out", p1.toString()).exit()).isZero();
    Path merged = dir.resolve("merged.csv");
    CliHarness.Result r = CliHarness.run("merge", "--out", merged.toString(), p0.toString(), p1.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).anyMatch(l -> l.contains("different checkpoints of tiny-mlm")
        && l.contains("weights"));
    assertThat(merged).doesNotExist();
  }

  @Test
  void compareShardsRecordTheSecondModelToo() throws Exception {
    Path corpus = Files.write(dir.resolve("pairs.txt"), List.of("the cat sat .", "a dog ran ."));
    Path other = TinyBert.create(2, 2, 5).writeTo(dir.resolve("other")).config().getParent();
    Path part = dir.resolve("c0.jsonl");
    CliHarness.Result r = CliHarness.run("compare", "--model", model.toString(), "--with", other.toString(),
        "--corpus", corpus.toString(), "--shard", "0/2", "--out", part.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String header = Files.readAllLines(part).get(0);
    assertThat(header).contains("\"models\":{\"config\":").contains("\"with_weights\":");
  }
}
