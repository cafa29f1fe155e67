package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rollout} and {@code layers} through the real CLI on a small model. */
class FlowCommandsTest {
  @TempDir static Path dir;
  static String model;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(3, 4, 13).writeTo(dir.resolve("tiny")).config().getParent().toString();
  }

  @Test
  void rolloutRowsAreDistributionsAndFlowComesWithIt() throws Exception {
    CliHarness.Result r = CliHarness.run("rollout", "--model", model, "--text", "the cat sat on the mat .", "--flow",
        "--disable", "2-1");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    int n = json.get("tokens").size();
    assertThat(json.get("rollout").size()).isEqualTo(3);
    assertThat(json.get("maps").asText()).isEqualTo("as-run");
    for (JsonNode row : json.get("rollout").get(2)) {
      double sum = 0;
      for (JsonNode v : row) {
        sum += v.asDouble();
      }
      assertThat(sum).isCloseTo(1.0, within(1e-5));
    }
    assertThat(json.get("flow").size()).isEqualTo(n);
    double sum = 0;
    for (JsonNode v : json.get("flowNormalized").get(0)) {
      sum += v.asDouble();
    }
    assertThat(sum).isCloseTo(1.0, within(1e-5));
  }

  @Test
  void layersWritesEveryPairAndTheDiagonalIsTheIntactModel() throws Exception {
    Path out = dir.resolve("compat.csv");
    CliHarness.Result r = CliHarness.run("layers", "--model", model, "--text", "the [MASK] sat on the mat .",
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = Files.readAllLines(out);
    assertThat(lines.get(0)).isEqualTo("from_layer,to_layer,logprob,delta_logprob,top1_agreement,inputs");
    assertThat(lines).hasSize(1 + 4 * 3);
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",");
      if (Integer.parseInt(f[1]) == Integer.parseInt(f[0]) + 1) {
        assertThat(Double.parseDouble(f[3])).as(line).isCloseTo(0.0, within(1e-5));
        assertThat(f[4]).isEqualTo("1.000000");
      }
    }
  }
}
