package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jacobian} through the real CLI on a small model: the documented JSON, the table, the refusals. */
class JacobianCommandTest {
  @TempDir static Path dir;
  static String model;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(2, 4, 13).writeTo(dir.resolve("tiny")).config().getParent().toString();
  }

  @Test
  void theJsonHasTheDocumentedFieldsAndAShortInputIsExactByDefault() throws Exception {
    Path out = dir.resolve("jacobian.json");
    CliHarness.Result r = CliHarness.run("jacobian", "--model", model, "--text", "the cat sat on the mat .",
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(Files.readString(out));
    int n = json.get("tokens").size();
    assertThat(json.get("tokens").get(0).asText()).isEqualTo("[CLS]");
    assertThat(json.get("method").asText()).isEqualTo("exact");
    assertThat(json.get("samples").asInt()).isZero();
    JsonNode jac = json.get("jacobian");
    assertThat(jac.size()).as("one matrix per layer").isEqualTo(2);
    for (JsonNode layer : jac) {
      assertThat(layer.size()).isEqualTo(n);
      for (JsonNode row : layer) {
        assertThat(row.size()).isEqualTo(n);
        for (JsonNode v : row) {
          assertThat(v.asDouble()).isGreaterThanOrEqualTo(0);
        }
      }
    }
    JsonNode c = json.get("correlations");
    assertThat(c.size()).isEqualTo(2);
    for (int l = 0; l < 2; l++) {
      assertThat(c.get(l).get("layer").asInt()).isEqualTo(l + 1);
      for (String f : new String[] {"spearmanAttention", "pearsonAttention", "spearmanNorm", "pearsonNorm"}) {
        assertThat(c.get(l).get(f).asDouble()).as(f).isBetween(-1.0, 1.0);
      }
    }
    assertThat(r.err()).contains("spearman_attn").contains("exact");
    assertThat(r.err().lines().filter(s -> s.matches("\\s+[12]\\s+.*"))).as("one table row per layer").hasSize(2);
  }

  @Test
  void samplesGiveTheProjectionAndNameK() throws Exception {
    CliHarness.Result r = CliHarness.run("jacobian", "--model", model, "--text", "a red car .", "--samples", "64",
        "--seed", "5");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("method").asText()).isEqualTo("random-projection");
    assertThat(json.get("samples").asInt()).isEqualTo(64);
    assertThat(json.get("seed").asLong()).isEqualTo(5);
    // the same input exactly: the estimate is within six of its standard deviations, sqrt(2 / 64) of J^2
    JsonNode exact = new ObjectMapper().readTree(CliHarness.run("jacobian", "--model", model, "--text", "a red car .",
        "--exact").out());
    double want = exact.get("jacobian").get(1).get(0).get(2).asDouble();
    double got = json.get("jacobian").get(1).get(0).get(2).asDouble();
    assertThat(got * got).isCloseTo(want * want, within(6 * Math.sqrt(2.0 / 64) * want * want));
  }

  @Test
  void badCommandLinesAreOneLineAndNoFileIsWritten() {
    Path out = dir.resolve("never.json");
    CliHarness.Result both = CliHarness.run("jacobian", "--model", model, "--text", "a cat", "--exact", "--samples",
        "4", "--out", out.toString());
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.errLines()).hasSize(1);
    assertThat(both.err()).contains("--exact and --samples").doesNotContain("Exception");
    CliHarness.Result zero = CliHarness.run("jacobian", "--model", model, "--text", "a cat", "--samples", "0");
    assertThat(zero.exit()).isEqualTo(2);
    assertThat(zero.errLines()).hasSize(1);
    CliHarness.Result empty = CliHarness.run("jacobian", "--model", model, "--text", " ", "--out", out.toString());
    assertThat(empty.exit()).isEqualTo(1);
    assertThat(empty.errLines()).hasSize(1);
    CliHarness.Result badHead = CliHarness.run("jacobian", "--model", model, "--text", "a cat", "--disable", "9-1");
    assertThat(badHead.exit()).isEqualTo(2);
    assertThat(badHead.err()).doesNotContain("Exception");
    assertThat(out).doesNotExist();
  }

  @Test
  void anExistingFileIsNotReplacedWithoutForce() throws Exception {
    Path out = dir.resolve("kept.json");
    Files.writeString(out, "mine");
    CliHarness.Result r = CliHarness.run("jacobian", "--model", model, "--text", "a cat", "--out", out.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("already exists").doesNotContain("Exception");
    assertThat(Files.readString(out)).isEqualTo("mine");
  }

  @Test
  void aRunLongerThanMaxMinutesStopsAfterItsFirstBackwardPassesAndWritesNothing() {
    // the estimate comes from the share of backward passes done; a tiny bound stands for a 500-token input
    java.nio.file.Path out = dir.resolve("too-long.json");
    CliHarness.Result r = CliHarness.run("jacobian", "--model", model, "--text", "the cat sat on the mat .",
        "--exact", "--max-minutes", "0.0000001", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).anyMatch(l -> l.contains("this run would take about")
        && l.contains("more than --max-minutes") && l.contains("nothing was written"));
    assertThat(out).doesNotExist();
  }

  @Test
  void aRunWithinItsLimitSaysHowLongItWillTake() {
    CliHarness.Result r = CliHarness.run("jacobian", "--model", model, "--text", "the cat sat .", "--samples", "2");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.errLines()).anyMatch(l -> l.startsWith("headscope: jacobian: about ") && l.endsWith(" in all"));
  }
}
