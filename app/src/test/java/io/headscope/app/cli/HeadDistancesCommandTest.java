package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code head-distances} through the real CLI on a small model the test writes (3 layers x 4 heads). */
class HeadDistancesCommandTest {
  @TempDir static Path dir;
  @TempDir Path work;
  static String model;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(3, 4, 7).writeTo(dir.resolve("tiny")).config().getParent().toString();
  }

  private Path corpus(String... lines) throws IOException {
    Path f = work.resolve("corpus.txt");
    Files.writeString(f, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    return f;
  }

  @Test
  void writesTheHeaderAndEveryOrderedPairOfDifferentHeads() throws IOException {
    Path out = work.resolve("distances.csv");
    CliHarness.Result r = CliHarness.run("head-distances", "--model", model, "--corpus",
        corpus("the cat sat on the mat .", "a dog ran .\tit was fast .", "", "birds fly .").toString(),
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
    assertThat(lines.get(0)).isEqualTo("layer_a,head_a,layer_b,head_b,js_divergence");
    int heads = 3 * 4;
    assertThat(lines).hasSize(1 + heads * (heads - 1));
    Map<String, String> value = new HashMap<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",", -1);
      assertThat(f).hasSize(5);
      assertThat(f[0] + "-" + f[1]).isNotEqualTo(f[2] + "-" + f[3]);
      assertThat(Integer.parseInt(f[0])).isBetween(1, 3);
      assertThat(Integer.parseInt(f[1])).isBetween(1, 4);
      assertThat(f[4]).matches("0\\.\\d{9}");
      assertThat(Double.parseDouble(f[4])).isBetween(0.0, Math.log(2));
      assertThat(value.put(f[0] + "-" + f[1] + " " + f[2] + "-" + f[3], f[4])).as("each ordered pair once").isNull();
    }
    // symmetric: (a,b) and (b,a) carry the same number
    assertThat(value.get("1-1 3-4")).isEqualTo(value.get("3-4 1-1"));
    assertThat(r.err()).contains("3 inputs, 100% of the file done").doesNotContain("Exception").contains("line 3").contains("wrote " + out);
  }

  @Test
  void maxInputsIsReportedAsTheMeansSize() throws IOException {
    Path out = work.resolve("d.csv");
    CliHarness.Result r = CliHarness.run("head-distances", "--model", model, "--corpus",
        corpus("one .", "two .", "three .").toString(), "--max-inputs", "2", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("mean over 2 inputs");
  }

  @Test
  void aMissingCorpusIsOneLineAndExitOneWithoutAFile() {
    Path out = work.resolve("distances.csv");
    CliHarness.Result r = CliHarness.run("head-distances", "--model", model, "--corpus",
        work.resolve("nowhere.txt").toString(), "--out", out.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("does not exist").doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(out).doesNotExist();
  }

  @Test
  void anEmptyCorpusIsOneLineAndExitOne() throws IOException {
    Path empty = work.resolve("empty.txt");
    Files.writeString(empty, "");
    Path out = work.resolve("distances.csv");
    CliHarness.Result r = CliHarness.run("head-distances", "--model", model, "--corpus", empty.toString(),
        "--out", out.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("No input of").doesNotContain("\tat ");
    assertThat(out).doesNotExist();
  }

  @Test
  void anUnwritableOutputIsRefusedBeforeAnyWork() throws IOException {
    Path out = work.resolve("missing-folder").resolve("distances.csv");
    CliHarness.Result r = CliHarness.run("head-distances", "--model", model, "--corpus",
        corpus("the cat sat .").toString(), "--out", out.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).doesNotContain("\tat ");
  }

  @Test
  void aNegativeMaxInputsIsABadCommandLine() throws IOException {
    CliHarness.Result r = CliHarness.run("head-distances", "--model", model, "--corpus",
        corpus("the cat sat .").toString(), "--max-inputs", "-1");
    assertThat(r.exit()).isEqualTo(2);
  }

  @Test
  void helpSaysBothOrdersOfEachPairAreWritten() {
    CliHarness.Result r = CliHarness.run("head-distances", "--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("both (a,b) and (b,a)").contains("--max-inputs").contains("layer_a,head_a");
  }
}
