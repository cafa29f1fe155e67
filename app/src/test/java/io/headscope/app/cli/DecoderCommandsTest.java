package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.decoders.DecoderFolders;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command-line contract on the rotary decoders, from folders in the hub's layout (the Llama bf16 and in
 * two shards): {@code attention --model DIR --text T} prints {@code tokens}, {@code ids} (as worked out by
 * hand from the hand-written tokenizer) and {@code attention[layer][head][query][key]}, one map per query
 * head, within the float32 bound of the float64 reference ({@code DecoderReference}); {@code predict} reads
 * the next token.
 */
class DecoderCommandsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"llama", "qwen2", "mistral", "gemma"})
  void attentionPrintsOneMapPerQueryHeadWithinTheReferencesBound(String type) throws Exception {
    Path folder = DecoderFolders.write(type, dir.resolve(type), 11);
    CliHarness.Result r = CliHarness.run("attention", "--model", folder.toString(), "--text", DecoderFolders.TEXT);
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = JSON.readTree(r.out());
    long[] ids = DecoderFolders.textIds(type);
    assertThat(json.get("ids").size()).isEqualTo(ids.length);
    for (int i = 0; i < ids.length; i++) {
      assertThat(json.get("ids").get(i).asLong()).isEqualTo(ids[i]);
    }
    assertThat(json.get("tokens").size()).isEqualTo(ids.length);
    double[][][][][] ref = DecoderFolders.reference(type, 11, ids);
    JsonNode attention = json.get("attention");
    assertThat(attention.size()).isEqualTo(2);
    for (int l = 0; l < 2; l++) {
      assertThat(attention.get(l).size()).as("one map per query head").isEqualTo(4);
      for (int h = 0; h < 4; h++) {
        for (int q = 0; q < ids.length; q++) {
          for (int k = 0; k < ids.length; k++) {
            double got = attention.get(l).get(h).get(q).get(k).asDouble();
            assertThat(Math.abs(got - ref[0][l][h][q][k])).as("%s %d-%d %d %d", type, l, h, q, k)
                .isLessThanOrEqualTo(DecoderFolders.LAMBDA * ref[1][l][h][q][k]);
          }
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"gpt_neox", "modernbert"})
  void pythiaAndModernBertPrintTheirMapsWithinTheReferencesBound(String type) throws Exception {
    Path folder = DecoderFolders.writeNeoxModern(type, dir.resolve(type), 13);
    CliHarness.Result r = CliHarness.run("attention", "--model", folder.toString(), "--text",
        DecoderFolders.neoxModernText(type));
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = JSON.readTree(r.out());
    long[] ids = DecoderFolders.neoxModernIds(type);
    assertThat(json.get("ids").size()).isEqualTo(ids.length);
    for (int i = 0; i < ids.length; i++) {
      assertThat(json.get("ids").get(i).asLong()).isEqualTo(ids[i]);
    }
    double[][][][][] ref = DecoderFolders.neoxModernReference(type, 13, ids);
    JsonNode attention = json.get("attention");
    assertThat(attention.size()).isEqualTo(ref[0].length);
    for (int l = 0; l < ref[0].length; l++) {
      for (int h = 0; h < 4; h++) {
        for (int q = 0; q < ids.length; q++) {
          for (int k = 0; k < ids.length; k++) {
            double got = attention.get(l).get(h).get(q).get(k).asDouble();
            assertThat(Math.abs(got - ref[0][l][h][q][k])).as("%s %d-%d %d %d", type, l, h, q, k)
                .isLessThanOrEqualTo(DecoderFolders.LAMBDA * ref[1][l][h][q][k]);
          }
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"llama", "gemma"})
  void predictReadsTheNextTokenWithHeadsOff(String type) throws Exception {
    Path folder = DecoderFolders.write(type, dir.resolve(type), 12);
    CliHarness.Result r = CliHarness.run("predict", "--model", folder.toString(), "--text", DecoderFolders.TEXT,
        "--disable", "1-1,2-4");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = JSON.readTree(r.out());
    assertThat(json.get("disabled").size()).isEqualTo(2);
    assertThat(json.get("predictions").get(0).get("position").asInt()).isEqualTo(DecoderFolders.textIds(type).length - 1);
  }

  /** {@code lens --dla} on an RMSNorm decoder: the final RMSNorm's scale frozen, rows that sum to what the command prints. */
  @Test
  void dlaOnAnRmsNormDecoderFreezesTheFinalNormsScale() throws Exception {
    Path folder = DecoderFolders.write("llama", dir.resolve("llama"), 12);
    Path dla = dir.resolve("dla.csv");
    CliHarness.Result r = CliHarness.run("lens", "--model", folder.toString(), "--text", DecoderFolders.TEXT,
        "--target", "a", "--contrast", "b", "--dla", "--out", dla.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    java.util.List<String> lines = java.nio.file.Files.readAllLines(dla);
    int last = DecoderFolders.textIds("llama").length - 1;
    assertThat(lines.get(1)).startsWith("embed,0,," + last + ",").endsWith(",rms_scale_frozen");
    assertThat(lines).hasSize(1 + 1 + 2 * (4 + 2)); // header, embed, 2 layers x (4 heads, attn_bias, mlp)
    assertThat(r.err()).contains("frozen final RMSNorm scale").contains("the model's logit difference is");
    double sum = lines.stream().skip(1).mapToDouble(l -> Double.parseDouble(l.split(",")[7])).sum();
    String printed = r.err().replaceAll("(?s).*components sum to (-?[0-9.]+);.*", "$1");
    assertThat(sum).isCloseTo(Double.parseDouble(printed), org.assertj.core.api.Assertions.within(1e-5));
  }

  /** {@code token-types} on a decoder: the first token's share (the attention sink), punctuation and the rest per layer. */
  @Test
  void tokenTypesOnADecoderGiveTheFirstTokensShare() throws Exception {
    Path folder = DecoderFolders.write("llama", dir.resolve("llama-tt"), 12);
    Path corpus = dir.resolve("corpus.txt");
    java.nio.file.Files.writeString(corpus, DecoderFolders.TEXT + "\n\na cab\n");
    Path out = dir.resolve("tt.csv");
    CliHarness.Result r = CliHarness.run("token-types", "--model", folder.toString(), "--corpus", corpus.toString(),
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("line 2").contains("blank");
    java.util.List<String> lines = java.nio.file.Files.readAllLines(out);
    assertThat(lines.get(0)).isEqualTo("layer,first_token,punct,other,inputs");
    assertThat(lines).hasSize(1 + 2);
    for (String line : lines.subList(1, 3)) {
      String[] f = line.split(",");
      double sum = Double.parseDouble(f[1]) + Double.parseDouble(f[2]) + Double.parseDouble(f[3]);
      assertThat(sum).as(line).isCloseTo(1, org.assertj.core.api.Assertions.within(1e-5));
      assertThat(f[4]).isEqualTo("2");
    }
    // a causal map's first row is all on the first token: the sink's share is at least 1 / (the longest input)
    assertThat(Double.parseDouble(lines.get(1).split(",")[1])).isGreaterThan(1.0 / DecoderFolders.textIds("llama").length);
    r = CliHarness.run("token-types", "--model", folder.toString(), "--corpus", corpus.toString(), "--shard", "0/2",
        "--out", dir.resolve("part").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err().strip()).contains("causal").doesNotContain("\n");
  }
}
