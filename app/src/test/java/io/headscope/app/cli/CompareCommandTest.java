package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code compare} through the real CLI on small models the test writes (2 layers x 3 heads). */
class CompareCommandTest {
  @TempDir static Path dir;
  @TempDir Path work;
  static String a;
  static String b;
  static String deeper;

  @BeforeAll
  static void writeModels() {
    a = TinyBert.create(2, 3, 5).writeTo(dir.resolve("a")).config().getParent().toString();
    b = TinyBert.create(2, 3, 11).writeTo(dir.resolve("b")).config().getParent().toString();
    deeper = TinyBert.create(3, 3, 5).writeTo(dir.resolve("deeper")).config().getParent().toString();
  }

  private Path corpus() throws IOException {
    Path f = work.resolve("corpus.txt");
    Files.writeString(f, "the cat sat on the mat .\na dog ran .\tit was fast .\n\nbirds fly .\n", StandardCharsets.UTF_8);
    return f;
  }

  @Test
  void writesEachLayersHeadsThenItsMeansRow() throws IOException {
    Path out = work.resolve("compare.csv");
    CliHarness.Result r = CliHarness.run("compare", "--model", a, "--with", b, "--corpus", corpus().toString(),
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
    assertThat(lines.get(0)).isEqualTo("layer,head,cosine,js_divergence,category_a,category_b,inputs");
    assertThat(lines).hasSize(1 + 2 * 4);
    for (int l = 0; l < 2; l++) {
      double cosineSum = 0;
      for (int h = 0; h < 3; h++) {
        String[] f = lines.get(1 + l * 4 + h).split(",", -1);
        assertThat(f).hasSize(7);
        assertThat(f[0]).isEqualTo(String.valueOf(l + 1));
        assertThat(f[1]).isEqualTo(String.valueOf(h + 1));
        assertThat(f[2]).matches("[01]\\.\\d{6}");
        assertThat(f[3]).matches("0\\.\\d{9}");
        assertThat(Double.parseDouble(f[3])).isBetween(0.0, Math.log(2));
        assertThat(f[4]).isNotEmpty();
        assertThat(f[5]).isNotEmpty();
        assertThat(f[6]).isEqualTo("3");
        cosineSum += Double.parseDouble(f[2]);
      }
      String[] mean = lines.get(1 + l * 4 + 3).split(",", -1);
      assertThat(mean[0]).isEqualTo(String.valueOf(l + 1));
      assertThat(mean[1]).isEqualTo("*");
      assertThat(Double.parseDouble(mean[2])).isCloseTo(cosineSum / 3, org.assertj.core.api.Assertions.within(2e-6));
      assertThat(mean[4]).isEmpty();
      assertThat(mean[5]).isEmpty();
    }
    assertThat(r.err()).contains("layers by mean cosine, most changed first: ").contains("line 3")
        .doesNotContain("Exception");
  }

  @Test
  void aModelWithItselfOnOneTextIsAllOnesAndZeros() throws IOException {
    Path out = work.resolve("self.csv");
    CliHarness.Result r = CliHarness.run("compare", "--model", a, "--with", a, "--text", "the cat sat on the mat .",
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    for (String line : Files.readAllLines(out, StandardCharsets.UTF_8).subList(1, 9)) {
      String[] f = line.split(",", -1);
      assertThat(f[2]).isEqualTo("1.000000");
      assertThat(f[3]).isEqualTo("0.000000000");
      assertThat(f[4]).isEqualTo(f[5]);
      assertThat(f[6]).isEqualTo("1");
    }
    assertThat(r.err()).contains("no head changed its category");
  }

  @Test
  void aModelOfAnotherShapeIsOneLineAndNoFile() {
    Path out = work.resolve("refused.csv");
    CliHarness.Result r = CliHarness.run("compare", "--model", a, "--with", deeper, "--text", "a cat .",
        "--out", out.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("same shape").doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(out).doesNotExist();
  }

  @Test
  void shardsMergeIntoTheBytesOfOneRun() throws IOException {
    Path corpus = corpus();
    Path whole = work.resolve("whole.csv");
    CliHarness.Result one = CliHarness.run("compare", "--model", a, "--with", b, "--corpus", corpus.toString(),
        "--batch", "1", "--out", whole.toString());
    assertThat(one.exit()).as(one.err()).isZero();
    for (int k = 0; k < 2; k++) {
      CliHarness.Result part = CliHarness.run("compare", "--model", a, "--with", b, "--corpus", corpus.toString(),
          "--batch", "1", "--shard", k + "/2", "--out", work.resolve("part" + k + ".jsonl").toString());
      assertThat(part.exit()).as(part.err()).isZero();
    }
    Path merged = work.resolve("merged.csv");
    CliHarness.Result m = CliHarness.run("merge", "--out", merged.toString(), work.resolve("part1.jsonl").toString(),
        work.resolve("part0.jsonl").toString());
    assertThat(m.exit()).as(m.err()).isZero();
    assertThat(Files.readAllBytes(merged)).isEqualTo(Files.readAllBytes(whole));
    assertThat(m.err()).contains("mean over 3 inputs").contains("line 3");
  }
}
