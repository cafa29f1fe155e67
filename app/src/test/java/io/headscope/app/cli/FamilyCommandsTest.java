package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.testing.families.ReferenceForward;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CLI on a model folder of every family (a tiny checkpoint in the family's layout, with a
 * tokenizer of the family's kind): {@code attention --model DIR} writes tokens, ids and
 * {@code attention[layer][head][query][key]} as it does for BERT, the maps the reference computes;
 * {@code predict} predicts where the family does.
 */
class FamilyCommandsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"roberta", "xlm-roberta", "distilbert", "electra", "albert", "gpt2"})
  void attentionWritesEveryFamilysMaps(String type) throws Exception {
    Path folder = dir.resolve(type);
    FamilyModelFolders.write(type, folder, 5);
    CliHarness.Result r = CliHarness.run("attention", "--model", folder.toString(), "--text", "the cat sat.");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = JSON.readTree(r.out());
    int n = json.get("tokens").size();
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = json.get("ids").get(i).asLong();
    }
    double[][][][] want = ReferenceForward.run(folder, ids).attention();
    JsonNode attention = json.get("attention");
    assertThat(attention.size()).isEqualTo(want.length);
    for (int l = 0; l < want.length; l++) {
      for (int h = 0; h < want[l].length; h++) {
        for (int q = 0; q < n; q++) {
          for (int k = 0; k < n; k++) {
            assertThat(attention.get(l).get(h).get(q).get(k).asDouble()).isCloseTo(want[l][h][q][k], within(1e-5));
          }
        }
      }
    }
    if (type.equals("gpt2")) {
      assertThat(attention.get(0).get(0).get(0).get(n - 1).asDouble()).isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"roberta", "gpt2"})
  void wordLevelMapsGroupTheFamilysTokens(String type) throws Exception {
    Path folder = dir.resolve(type);
    FamilyModelFolders.write(type, folder, 5);
    CliHarness.Result r = CliHarness.run("attention", "--model", folder.toString(), "--text", "the cat sat.", "--words");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = JSON.readTree(r.out());
    java.util.List<String> words = new java.util.ArrayList<>();
    json.get("words").forEach(w -> words.add(w.asText()));
    assertThat(words).containsSubsequence("the", "cat", "sat", ".");
    for (JsonNode row : json.get("attention").get(0).get(0)) {
      double sum = 0;
      for (JsonNode v : row) {
        sum += v.asDouble();
      }
      assertThat(sum).isCloseTo(1.0, within(1e-5));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"gpt2"})
  void predictShowsACausalModelsNextToken(String type) throws Exception {
    Path folder = dir.resolve(type);
    FamilyModelFolders.write(type, folder, 5);
    CliHarness.Result r = CliHarness.run("predict", "--model", folder.toString(), "--text", "the cat sat");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).isNotBlank();
  }

  @org.junit.jupiter.api.Test
  void categoriesAreWithheldForACausalModelInOneLineAndGivenForAnEncoder() throws Exception {
    Path gpt2 = dir.resolve("gpt2");
    FamilyModelFolders.write("gpt2", gpt2, 5);
    CliHarness.Result r = CliHarness.run("classify", "--model", gpt2.toString(), "--text", "the cat sat.");
    assertThat(r.exit()).isNotZero();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("causal").contains("withholds").doesNotContain("Exception");
    Path roberta = dir.resolve("roberta");
    FamilyModelFolders.write("roberta", roberta, 5);
    CliHarness.Result ok = CliHarness.run("classify", "--model", roberta.toString(), "--text", "the cat sat.");
    assertThat(ok.exit()).as(ok.err()).isZero();
  }

  @org.junit.jupiter.api.Test
  void aGpt2FollowsATargetAsItsNextTokenAndRefusesPairsInOneLine() throws Exception {
    Path gpt2 = dir.resolve("gpt2");
    FamilyModelFolders.write("gpt2", gpt2, 5);
    CliHarness.Result r = CliHarness.run("ablate", "--model", gpt2.toString(), "--text", "the cat sat", "--target", "t",
        "--layers");
    assertThat(r.exit()).as(r.err()).isZero();
    CliHarness.Result pair = CliHarness.run("attention", "--model", gpt2.toString(), "--text", "the cat",
        "--pair", "the dog");
    assertThat(pair.exit()).isNotZero();
    assertThat(pair.errLines()).hasSize(1);
    assertThat(pair.err()).contains("no format for a pair");
  }
}
