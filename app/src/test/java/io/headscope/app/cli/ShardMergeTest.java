package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A corpus run as three shards in three processes and merged gives the very bytes of one run over the
 * whole corpus: the sums are exact (classify, token-types) or replayed in corpus order (ablate,
 * importance).
 */
class ShardMergeTest {
  @TempDir static Path dir;
  static String model;
  static Path corpus;
  /** The first nine lines, for the slower sweeps. */
  static Path small;

  @BeforeAll
  static void writeModelAndCorpus() throws IOException {
    model = TinyBert.create(3, 4, 7).writeTo(dir.resolve("tiny")).config().getParent().toString();
    List<String> lines = new ArrayList<>();
    String[] words = "the cat sat on a mat and dog ran to house in paris is capital of france big red car".split(" ");
    java.util.Random r = new java.util.Random(17);
    for (int i = 0; i < 26; i++) {
      StringBuilder a = new StringBuilder();
      for (int w = 0, n = 3 + r.nextInt(12); w < n; w++) {
        a.append(words[r.nextInt(words.length)]).append(w % 5 == 4 ? " , " : " ");
      }
      String line = a.toString().strip() + " .";
      lines.add(i % 3 == 1 ? line + "\tthe dog ran ." : line);
    }
    lines.set(7, ""); // a skipped line, reported by its shard
    lines.set(12, "the cat sat on the mat . ".repeat(20)); // longer than the tiny model's 64 positions
    corpus = Files.write(dir.resolve("corpus.txt"), lines, StandardCharsets.UTF_8);
    small = Files.write(dir.resolve("small.txt"), lines.subList(0, 9), StandardCharsets.UTF_8);
  }

  /** The other per-input commands, shards run in this process (the arithmetic is the same as ablate's). */
  @ParameterizedTest
  @ValueSource(strings = {"importance", "layers", "favor"})
  void threeShardsOfTheOtherSweepsMergeToTheBytesOfOneRun(String command) throws IOException {
    Path work = Files.createTempDirectory(dir, command);
    List<String> common = new ArrayList<>(List.of(command, "--model", model, "--corpus", small.toString()));
    if (command.equals("favor")) {
      common.addAll(List.of("--features", "8", "--kind", "orf", "--draws", "2", "--effect"));
    }
    CliHarness.Result one = CliHarness.run(with(common, "--out", work.resolve("single.csv").toString()));
    assertThat(one.exit()).as(one.err()).isZero();
    List<String> merge = new ArrayList<>(List.of("merge", "--out", work.resolve("merged.csv").toString()));
    for (int k = 0; k < 3; k++) {
      Path part = work.resolve("part-" + k + ".jsonl");
      CliHarness.Result r = CliHarness.run(with(common, "--shard", k + "/3", "--out", part.toString()));
      assertThat(r.exit()).as(r.err()).isZero();
      merge.add(part.toString());
    }
    CliHarness.Result m = CliHarness.run(merge.toArray(String[]::new));
    assertThat(m.exit()).as(m.err()).isZero();
    assertThat(Files.readAllBytes(work.resolve("merged.csv"))).as(command)
        .isEqualTo(Files.readAllBytes(work.resolve("single.csv")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"classify", "token-types", "ablate"})
  void threeShardsInThreeProcessesMergeToTheBytesOfOneRun(String command) throws Exception {
    Path work = Files.createTempDirectory(dir, command);
    Path single = work.resolve("single.csv");
    List<ChildCli.Started> shards = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      shards.add(ChildCli.start(work, args(command, "--out", work.resolve("part-" + k + ".jsonl").toString(),
          "--shard", k + "/3")));
    }
    CliHarness.Result one = CliHarness.run(args(command, "--out", single.toString()));
    assertThat(one.exit()).as(one.err()).isZero();
    for (ChildCli.Started s : shards) {
      CliHarness.Result r = s.result();
      assertThat(r.exit()).as(r.err()).isZero();
    }
    Path merged = work.resolve("merged.csv");
    // parts in another order than 0, 1, 2: merge puts them in order itself
    CliHarness.Result m = CliHarness.run("merge", "--out", merged.toString(), work.resolve("part-2.jsonl").toString(),
        work.resolve("part-0.jsonl").toString(), work.resolve("part-1.jsonl").toString());
    assertThat(m.exit()).as(m.err()).isZero();
    assertThat(Files.readAllBytes(merged)).as(command).isEqualTo(Files.readAllBytes(single));
    if (command.equals("ablate")) {
      assertThat(Files.readString(work.resolve("merged.csv.json"))).isEqualTo(Files.readString(work.resolve("single.csv.json")));
    }
    assertThat(Files.readAllLines(work.resolve("part-1.jsonl")).get(0))
        .startsWith("{\"headscope_partial\":2,\"command\":\"" + command + "\",\"shard\":\"1/3\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"syntax", "coref"})
  void treebankShardsMergeToTheBytesOfOneRunBothFiles(String command) throws IOException {
    Path treebank = Path.of("..", "analysis", "src", "test", "resources", "treebanks", command + ".conllu");
    assertThat(treebank).exists();
    Path work = Files.createTempDirectory(dir, command);
    List<String> common = new ArrayList<>(List.of(command, "--model", model, "--treebank", treebank.toString()));
    if (command.equals("coref")) {
      common.addAll(List.of("--window", "48")); // the tiny model has 64 positions
    }
    CliHarness.Result one = CliHarness.run(with(common, "--out", work.resolve("single.csv").toString()));
    assertThat(one.exit()).as(one.err()).isZero();
    List<String> merge = new ArrayList<>(List.of("merge", "--out", work.resolve("merged.csv").toString()));
    for (int k = 3; k-- > 0; ) {
      Path part = work.resolve("part-" + k + ".jsonl");
      CliHarness.Result r = CliHarness.run(with(common, "--shard", k + "/3", "--out", part.toString()));
      assertThat(r.exit()).as(r.err()).isZero();
      merge.add(part.toString());
    }
    CliHarness.Result m = CliHarness.run(merge.toArray(String[]::new));
    assertThat(m.exit()).as(m.err()).isZero();
    String second = command.equals("syntax") ? "-best" : "-baselines";
    assertThat(Files.readAllBytes(work.resolve("merged.csv"))).isEqualTo(Files.readAllBytes(work.resolve("single.csv")));
    assertThat(Files.readAllBytes(work.resolve("merged" + second + ".csv")))
        .isEqualTo(Files.readAllBytes(work.resolve("single" + second + ".csv")));
    // the report on stderr is the same too, but for the lines that say which file was written
    assertThat(m.errLines().stream().filter(l -> !l.contains("wrote")).toList())
        .isEqualTo(one.errLines().stream().filter(l -> !l.contains("wrote") && !l.startsWith("headscope: " + command + ":"))
            .toList());
  }

  private static String[] with(List<String> common, String... more) {
    List<String> a = new ArrayList<>(common);
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  private static String[] args(String command, String... more) {
    List<String> a = new ArrayList<>(List.of(command, "--model", model, "--corpus", corpus.toString()));
    if (command.equals("ablate")) {
      a.add("--layers");
    }
    if (command.equals("classify") || command.equals("token-types")) {
      a.addAll(List.of("--batch", "3")); // many batches for three shards
    }
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }
}
