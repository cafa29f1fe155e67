package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.decoders.TransformersFixtures;
import io.headscope.model.encoderdecoders.TransformersEncoderDecoderFixtures;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command-line contract end to end on checkpoints transformers 5.18 made and ran (model-loader's {@code
 * TransformersParityTest}): {@code ./headscope attention --model DIR --text T [--target U]} prints transformers' ids
 * and every map of every kind within the bound that test derives ({@code 8 sigma + |R - X|}, each under 1e-4).
 */
class TransformersParityCommandTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest
  @ValueSource(strings = {"llama-bf16-sharded", "gemma-headdim12-mqa", "mistral-window3", "modernbert-local4"})
  void attentionPrintsTransformersMaps(String name) throws Exception {
    CliHarness.Result r = CliHarness.run("attention", "--model", TransformersFixtures.folder(name).toString(),
        "--text", TransformersFixtures.text(name));
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = JSON.readTree(r.out());
    assertIds(json.get("ids"), TransformersFixtures.ids(name));
    within(name, json.get("attention"), TransformersFixtures.mapsAndBounds(name));
  }

  @ParameterizedTest
  @ValueSource(strings = {"t5v11-gated-untied-bf16", "bart"})
  void attentionWithATargetPrintsTransformersThreeKinds(String name) throws Exception {
    CliHarness.Result r = CliHarness.run("attention", "--model",
        TransformersEncoderDecoderFixtures.folder(name).toString(),
        "--text", TransformersEncoderDecoderFixtures.text(name, "text"),
        "--target", TransformersEncoderDecoderFixtures.text(name, "target"));
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = JSON.readTree(r.out());
    assertIds(json.get("ids"), TransformersEncoderDecoderFixtures.ids(name, "ids"));
    assertIds(json.get("target_ids"), TransformersEncoderDecoderFixtures.ids(name, "target_ids"));
    for (Map.Entry<String, double[][][][][]> kind : TransformersEncoderDecoderFixtures.mapsAndBounds(name).entrySet()) {
      within(name + " " + kind.getKey(), json.get(kind.getKey()), kind.getValue());
    }
  }

  private static void assertIds(JsonNode got, long[] expected) {
    assertThat(got.size()).isEqualTo(expected.length);
    for (int i = 0; i < expected.length; i++) {
      assertThat(got.get(i).asLong()).as("id %d", i).isEqualTo(expected[i]);
    }
  }

  private static void within(String what, JsonNode maps, double[][][][][] expected) {
    double[][][][] x = expected[0];
    double[][][][] bound = expected[1];
    assertThat(maps.size()).as(what + " layers").isEqualTo(x.length);
    for (int l = 0; l < x.length; l++) {
      assertThat(maps.get(l).size()).as(what + " heads").isEqualTo(x[l].length);
      for (int h = 0; h < x[l].length; h++) {
        assertThat(maps.get(l).get(h).size()).as(what + " queries").isEqualTo(x[l][h].length);
        for (int q = 0; q < x[l][h].length; q++) {
          assertThat(maps.get(l).get(h).get(q).size()).as(what + " keys").isEqualTo(x[l][h][q].length);
          for (int k = 0; k < x[l][h][q].length; k++) {
            double got = maps.get(l).get(h).get(q).get(k).asDouble();
            assertThat(Math.abs(got - x[l][h][q][k])).as("%s %d-%d %d %d", what, l, h, q, k)
                .isLessThanOrEqualTo(bound[l][h][q][k]);
            assertThat(bound[l][h][q][k]).isLessThan(1e-4);
          }
        }
      }
    }
  }
}
