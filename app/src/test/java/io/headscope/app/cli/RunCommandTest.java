package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.analysis.export.NpzReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** `headscope run`: the .npz's cache equals `attention`'s maps, an edit changes what it should, bad edits are one line. */
class RunCommandTest extends OnTinyModel {
  static final String TEXT = "the cat sat on the [MASK] .";

  @Test
  void theCachedPatternIsTheAttentionCommandsMap() throws Exception {
    Path out = dir.resolve("run.npz");
    CliHarness.Result r = CliHarness.run("run", "--model", model.toString(), "--text", TEXT, "--cache",
        "blocks.*.attn.hook_pattern,blocks.1.attn.hook_z", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    Map<String, NpzReader.Array> z;
    try (var in = Files.newInputStream(out)) {
      z = NpzReader.read(in);
    }
    assertThat(z.keySet()).containsExactly("tokens", "ids", "lengths", "log_probs", "blocks.0.attn.hook_pattern",
        "blocks.1.attn.hook_pattern", "blocks.1.attn.hook_z");
    JsonNode att = new ObjectMapper().readTree(CliHarness.run("attention", "--model", model.toString(), "--text", TEXT).out());
    int t = att.get("tokens").size();
    assertThat(z.get("tokens").strings()).hasSize(t);
    assertThat(z.get("blocks.1.attn.hook_z").shape()).containsExactly(1, t, 2, 4);
    for (int l = 0; l < 2; l++) {
      double[] p = z.get("blocks." + l + ".attn.hook_pattern").numbers();
      for (int h = 0; h < 2; h++) {
        for (int i = 0; i < t; i++) {
          for (int j = 0; j < t; j++) {
            double json = att.get("attention").get(l).get(h).get(i).get(j).asDouble();
            assertThat(p[(h * t + i) * t + j]).isCloseTo(json, org.assertj.core.data.Offset.offset(1e-6));
          }
        }
      }
    }
  }

  @Test
  void badRequestsAreOneLine() {
    Path out = dir.resolve("bad.npz");
    String[][] bad = {
        {"--interventions", "[{\"hook\": \"blocks.0.attn.hook_z\", \"op\": \"erase\"}]"},
        {"--interventions", "[{\"hook\": \"blocks.0.attn.hook_z\", \"op\": \"scale\"}]"},
        {"--interventions", "[{\"hook\": \"blocks.0.attn.hook_z\", \"op\": \"zero\", \"head\": 1}]"},
        {"--interventions", "not json"},
        {"--cache", "blocks.9.attn.hook_z"},
    };
    for (String[] extra : bad) {
      String[] args = new String[] {"run", "--model", model.toString(), "--text", TEXT, extra[0], extra[1], "--out",
          out.toString()};
      CliHarness.Result r = CliHarness.run(args);
      assertThat(r.exit()).as(String.join(" ", extra)).isNotZero();
      assertThat(r.errLines()).as(r.err()).hasSize(1);
      assertThat(out).doesNotExist();
    }
    CliHarness.Result noOut = CliHarness.run("run", "--model", model.toString(), "--text", TEXT);
    assertThat(noOut.exit()).isEqualTo(2);
  }
}
