package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad --shard values and parts that do not belong together: one line, a non-zero exit, no file. */
class ShardRefusalTest {
  @TempDir static Path dir;
  static String model;
  static String otherModel;
  static Path corpus;
  static Path otherCorpus;
  /** classify shards 0/3, 1/3, 2/3 of corpus, and 0/3 of another corpus, another model, token-types. */
  static Path p0;
  static Path p1;
  static Path p2;
  static Path otherCorpusP0;
  static Path otherModelP0;
  static Path tokenTypesP0;
  static Path twoShardsP0;

  @TempDir Path work;

  @BeforeAll
  static void writeParts() throws IOException {
    model = TinyBert.create(2, 2, 3).writeTo(dir.resolve("tiny")).config().getParent().toString();
    otherModel = TinyBert.create(2, 2, 4).writeTo(dir.resolve("tiny-other")).config().getParent().toString();
    corpus = Files.writeString(dir.resolve("corpus.txt"), "the cat sat .\na dog ran .\nthe mat .\nparis is big .\n");
    otherCorpus = Files.writeString(dir.resolve("other.txt"), "the cat sat .\na dog ran .\nthe mat .\nparis is red .\n");
    p0 = part("classify", model, corpus, "0/3");
    p1 = part("classify", model, corpus, "1/3");
    p2 = part("classify", model, corpus, "2/3");
    otherCorpusP0 = part("classify", model, otherCorpus, "0/3");
    otherModelP0 = part("classify", otherModel, corpus, "0/3");
    tokenTypesP0 = part("token-types", model, corpus, "0/3");
    twoShardsP0 = part("classify", model, corpus, "0/2");
  }

  private static Path part(String command, String m, Path c, String shard) {
    Path out = dir.resolve(command + "-" + Path.of(m).getFileName() + "-" + c.getFileName() + "-"
        + shard.replace("/", "of") + ".jsonl");
    CliHarness.Result r = CliHarness.run(command, "--model", m, "--corpus", c.toString(), "--shard", shard,
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    return out;
  }

  private CliHarness.Result merge(Path... parts) {
    Path out = work.resolve("merged.csv");
    String[] args = Stream.concat(Stream.of("merge", "--out", out.toString()),
        Stream.of(parts).map(Path::toString)).toArray(String[]::new);
    CliHarness.Result r = CliHarness.run(args);
    if (r.exit() != 0) {
      assertThat(out).as("a refused merge writes nothing").doesNotExist();
      assertThat(r.errLines()).as(r.err()).hasSize(1);
      assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
    }
    return r;
  }

  @Test
  void allThreePartsMerge() {
    assertThat(merge(p1, p2, p0).exit()).isZero();
  }

  @Test
  void aMissingShardIsNamed() {
    CliHarness.Result r = merge(p0, p2);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("Shard 1/3 is missing");
  }

  @Test
  void aShardGivenTwiceIsRefused() throws IOException {
    Path copy = Files.copy(p1, work.resolve("copy-of-1.jsonl"));
    CliHarness.Result r = merge(p0, p1, copy, p2);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("are both shard 1/3");
  }

  @Test
  void aShardOfAnotherCorpusIsRefusedByItsHash() {
    CliHarness.Result r = merge(otherCorpusP0, p1, p2);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("come from different corpora").contains("sha256");
  }

  @Test
  void aShardOfAnotherModelIsRefused() {
    CliHarness.Result r = merge(otherModelP0, p1, p2);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("were run with different models");
  }

  @Test
  void aShardOfAnotherCommandIsRefused() {
    CliHarness.Result r = merge(tokenTypesP0, p1, p2);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("parts of different commands");
  }

  @Test
  void shardsOfAnotherSplitAreRefused() {
    CliHarness.Result r = merge(twoShardsP0, p1, p2);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("split the corpus differently");
  }

  @Test
  void shardsOfAnotherBatchSizeAreRefused() {
    Path out = dir.resolve("batch-3.jsonl");
    CliHarness.Result r0 = CliHarness.run("classify", "--model", model, "--corpus", corpus.toString(), "--shard", "0/3",
        "--batch", "3", "--out", out.toString());
    assertThat(r0.exit()).as(r0.err()).isZero();
    CliHarness.Result r = merge(out, p1, p2);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("different settings").contains("batch");
  }

  @Test
  void aPartCutShortIsRefused() throws IOException {
    List<String> lines = Files.readAllLines(p1, StandardCharsets.UTF_8);
    Path cut = Files.write(work.resolve("cut.jsonl"), lines.subList(0, lines.size() - 2), StandardCharsets.UTF_8);
    CliHarness.Result r = merge(p0, cut, p2);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("is incomplete");
  }

  @Test
  void aFileThatIsNoPartIsRefused() throws IOException {
    CliHarness.Result r = merge(p0, corpus, p2);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("is not a HeadScope partial result");
    assertThat(merge(p0, work.resolve("nothing.jsonl"), p2).err()).contains("does not exist");
  }

  @ParameterizedTest
  @ValueSource(strings = {"3/3", "4/3", "-1/3", "1/0", "0/0", "1", "a/b", "1/3/5", ""})
  void aBadShardIsOneLineAndACommandLineError(String shard) {
    Path out = work.resolve("part.jsonl");
    CliHarness.Result r = CliHarness.run("classify", "--model", model, "--corpus", corpus.toString(), "--shard",
        shard, "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("--shard");
    assertThat(out).doesNotExist();
  }

  @Test
  void aShardOfOneTypedInputIsRefused() {
    CliHarness.Result r = CliHarness.run("ablate", "--model", model, "--text", "the cat sat .", "--shard", "0/2");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--shard goes with --corpus");
  }

  @Test
  void aShardOfAPipeIsRefused() {
    CliHarness.Result r = CliHarness.run("token-types", "--model", model, "--corpus", "/dev/null", "--shard", "0/2",
        "--out", work.resolve("p.jsonl").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("--shard needs a corpus file").contains("not a regular file");
  }

  @Test
  void theHelpSaysKCountsFromZero() {
    assertThat(CliHarness.run("classify", "--help").out()).contains("--shard=K/N").contains("K counts from 0");
  }

  @Test
  void aShardWithNoInputWritesAnEmptyPartAndTheMergeStillMatches() throws IOException {
    // ten shards of four lines: six hold nothing
    Path single = work.resolve("single.csv");
    assertThat(CliHarness.run("token-types", "--model", model, "--corpus", corpus.toString(), "--out",
        single.toString()).exit()).isZero();
    Path[] parts = new Path[10];
    for (int k = 0; k < 10; k++) {
      parts[k] = work.resolve("p" + k + ".jsonl");
      CliHarness.Result r = CliHarness.run("token-types", "--model", model, "--corpus", corpus.toString(), "--shard",
          k + "/10", "--out", parts[k].toString());
      assertThat(r.exit()).as(r.err()).isZero();
    }
    assertThat(merge(parts).exit()).isZero();
    assertThat(Files.readAllBytes(work.resolve("merged.csv"))).isEqualTo(Files.readAllBytes(single));
  }
}
