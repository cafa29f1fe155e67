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

/** {@code attention} and {@code predict} on a small model the test writes, through the real CLI. */
class EngineCommandsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dir;
  static String model;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(3, 4, 11).writeTo(dir.resolve("tiny")).config().getParent().toString();
  }

  @Test
  void attentionPrintsEveryMapAndValueNormAsJson() throws Exception {
    CliHarness.Result r = CliHarness.run("attention", "--model", model, "--text", "the cat sat.", "--pair", "a dog ran.");
    assertThat(r.exit()).isZero();
    JsonNode json = JSON.readTree(r.out());
    int n = json.get("tokens").size();
    assertThat(json.get("tokens").get(0).asText()).isEqualTo("[CLS]");
    assertThat(json.get("ids").size()).isEqualTo(n);
    assertThat(json.get("segments").get(n - 1).asInt()).isEqualTo(1);
    assertThat(json.get("layers").asInt()).isEqualTo(3);
    assertThat(json.get("heads").asInt()).isEqualTo(4);
    JsonNode attention = json.get("attention");
    assertThat(attention.size()).isEqualTo(3);
    assertThat(attention.get(2).size()).isEqualTo(4);
    for (JsonNode row : attention.get(2).get(3)) {
      assertThat(row.size()).isEqualTo(n);
      double sum = 0;
      for (JsonNode v : row) {
        sum += v.asDouble();
      }
      assertThat(sum).isCloseTo(1.0, within(1e-5));
    }
    assertThat(json.get("valueNorms").get(0).get(0).size()).isEqualTo(n);
  }

  @Test
  void attentionWithWordsWritesTheWordsAndWordLevelMapsWhoseRowsSumToOne() throws Exception {
    CliHarness.Result r = CliHarness.run("attention", "--model", model, "--text", "the cats walked.", "--words");
    assertThat(r.exit()).isZero();
    JsonNode json = JSON.readTree(r.out());
    assertThat(json.get("level").asText()).isEqualTo("words");
    java.util.List<String> words = new java.util.ArrayList<>();
    json.get("words").forEach(w -> words.add(w.asText()));
    assertThat(words).containsExactly("[CLS]", "the", "cats", "walked", ".", "[SEP]");
    assertThat(json.get("wordOfToken").size()).isEqualTo(json.get("tokens").size());
    JsonNode map = json.get("attention").get(1).get(2);
    assertThat(map.size()).isEqualTo(words.size());
    for (JsonNode row : map) {
      assertThat(row.size()).isEqualTo(words.size());
      double sum = 0;
      for (JsonNode v : row) {
        sum += v.asDouble();
      }
      assertThat(sum).isCloseTo(1.0, within(1e-5));
    }
    assertThat(JSON.readTree(CliHarness.run("attention", "--model", model, "--text", "the cats walked.").out())
        .get("level").asText()).isEqualTo("wordpieces");
  }

  @Test
  void attentionWithLayerNormsAddsEachLayersNormMapBoundedByTheHeadsNorms() throws Exception {
    CliHarness.Result plain = CliHarness.run("attention", "--model", model, "--text", "the cat sat.");
    CliHarness.Result r = CliHarness.run("attention", "--model", model, "--text", "the cat sat.", "--layer-norms");
    assertThat(r.exit()).isZero();
    assertThat(JSON.readTree(plain.out()).has("layerNorms")).isFalse();
    JsonNode json = JSON.readTree(r.out());
    int n = json.get("tokens").size();
    JsonNode norms = json.get("layerNorms");
    assertThat(norms.size()).isEqualTo(3);
    boolean someBelowTheBound = false;
    for (int l = 0; l < 3; l++) {
      assertThat(norms.get(l).size()).isEqualTo(n);
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          // the triangle inequality: ||sum_h A^h_ij f^h_j|| <= sum_h A^h_ij ||f^h_j||, from the same file's numbers
          double bound = 0;
          for (int h = 0; h < 4; h++) {
            bound += json.get("attention").get(l).get(h).get(i).get(j).asDouble()
                * json.get("valueNorms").get(l).get(h).get(j).asDouble();
          }
          double v = norms.get(l).get(i).get(j).asDouble();
          assertThat(v).isBetween(0.0, bound * (1 + 1e-5) + 1e-6);
          someBelowTheBound |= v < bound * 0.99;
        }
      }
    }
    assertThat(someBelowTheBound).as("head vectors point different ways, so the sum is shorter").isTrue();
  }

  @Test
  void predictWithDisabledHeadsShowsBeforeAfterAndKl() throws Exception {
    CliHarness.Result r = CliHarness.run("predict", "--model", model, "--text", "the [MASK] sat on the mat.",
        "--disable", "2,3-1", "--mode", "uniform", "--top", "4");
    assertThat(r.exit()).isZero();
    JsonNode json = JSON.readTree(r.out());
    assertThat(json.get("disabled")).hasSize(5);
    JsonNode p = json.get("predictions").get(0);
    assertThat(p.get("position").asInt()).isEqualTo(2);
    assertThat(p.get("top")).hasSize(4);
    assertThat(p.get("before")).hasSize(4);
    assertThat(p.get("original").get("token").asText()).isEqualTo(p.get("before").get(0).get("token").asText());
    assertThat(p.get("klDivergence").asDouble()).isGreaterThan(0);
  }

  @Test
  void outputFileIsWrittenAndNotOverwrittenWithoutForce() throws Exception {
    Path out = dir.resolve("a.json");
    assertThat(CliHarness.run("attention", "--model", model, "--text", "hello world", "--out", out.toString()).exit())
        .isZero();
    String first = Files.readString(out);
    CliHarness.Result again = CliHarness.run("attention", "--model", model, "--text", "the dog", "--out", out.toString());
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.errLines()).hasSize(1).first().asString().contains("already exists").contains("--force");
    assertThat(Files.readString(out)).isEqualTo(first);
    assertThat(CliHarness.run("attention", "--model", model, "--text", "the dog", "--out", out.toString(), "--force")
        .exit()).isZero();
    assertThat(Files.readString(out)).isNotEqualTo(first);
  }

  @Test
  void userMistakesGiveOneLineAndANonZeroExit() {
    String[][] mistakes = {
        {"predict", "--model", model, "--text", "no mask here."},
        {"predict", "--model", model, "--text", "the [MASK].", "--disable", "9-1"},
        {"predict", "--model", model, "--text", "the [MASK].", "--disable", "2-5"},
        {"predict", "--model", model, "--text", "the [MASK].", "--disable", "two"},
        {"predict", "--model", model, "--text", "the [MASK].", "--mode", "half"},
        {"attention", "--model", model, "--text", "   "},
        {"attention", "--model", model, "--text", "a", "--pair", ""},
        {"attention", "--model", dir.resolve("missing").toString(), "--text", "a"},
        {"attention", "--model", model, "--text", "a", "--out", "/proc/no/such/dir/x.json"},
        {"attention", "--model", model, "--text", "a", "--out", dir.toString()},
    };
    // bad option values (--disable, --mode) are command-line errors (2); the rest bad input (1)
    java.util.Set<Integer> commandLineErrors = java.util.Set.of(1, 2, 3, 4);
    for (int i = 0; i < mistakes.length; i++) {
      String[] args = mistakes[i];
      CliHarness.Result r = CliHarness.run(args);
      assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(commandLineErrors.contains(i) ? 2 : 1);
      assertThat(r.errLines()).as(String.join(" ", args)).hasSize(1);
      assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
    }
    assertThat(CliHarness.run("predict", "--text").exit()).isEqualTo(2);
  }
}
