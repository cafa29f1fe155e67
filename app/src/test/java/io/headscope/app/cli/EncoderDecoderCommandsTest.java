package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.decoders.DecoderFolders;
import io.headscope.model.encoderdecoders.EncoderDecoderFolders;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command-line contract on encoder-decoders, from T5 and BART folders in the hub's layout: {@code attention
 * --model DIR --text SOURCE --target TARGET} prints {@code tokens}, {@code ids} (the source's), {@code
 * target_tokens}, {@code target_ids} (as worked out by hand from the hand-written tokenizers: T5's target ends
 * with {@code </s>}, BART's is {@code <s> ... </s>}), and {@code encoder_attention}, {@code decoder_attention},
 * {@code cross_attention} within the float32 bound of the float64 reference; {@code predict --target} reads
 * the next target token; every other command says in one line why not.
 */
class EncoderDecoderCommandsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"t5", "t5v11", "bart"})
  void attentionPrintsTheThreeKindsWithinTheReferencesBound(String type) throws Exception {
    Path folder = EncoderDecoderFolders.write(type, dir.resolve(type), 21);
    CliHarness.Result r = CliHarness.run("attention", "--model", folder.toString(), "--text",
        EncoderDecoderFolders.source(type), "--target", EncoderDecoderFolders.target(type));
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = JSON.readTree(r.out());
    long[] s = EncoderDecoderFolders.sourceIds(type);
    long[] t = EncoderDecoderFolders.targetIds(type);
    ids(json.get("ids"), s);
    ids(json.get("target_ids"), t);
    assertThat(json.get("tokens").size()).isEqualTo(s.length);
    assertThat(json.get("target_tokens").size()).isEqualTo(t.length);
    double[][][][][][] ref = EncoderDecoderFolders.reference(type, 21);
    String[] kinds = {"encoder_attention", "decoder_attention", "cross_attention"};
    for (int kind = 0; kind < 3; kind++) {
      JsonNode maps = json.get(kinds[kind]);
      double[][][][] want = ref[kind][0];
      assertThat(maps.size()).as(kinds[kind] + " layers").isEqualTo(want.length);
      for (int l = 0; l < want.length; l++) {
        assertThat(maps.get(l).size()).isEqualTo(want[l].length);
        for (int h = 0; h < want[l].length; h++) {
          assertThat(maps.get(l).get(h).size()).as("queries").isEqualTo(want[l][h].length);
          for (int q = 0; q < want[l][h].length; q++) {
            assertThat(maps.get(l).get(h).get(q).size()).as("keys").isEqualTo(want[l][h][q].length);
            for (int k = 0; k < want[l][h][q].length; k++) {
              double got = maps.get(l).get(h).get(q).get(k).asDouble();
              assertThat(Math.abs(got - want[l][h][q][k])).as("%s %s %d-%d %d %d", type, kinds[kind], l, h, q, k)
                  .isLessThanOrEqualTo(EncoderDecoderFolders.LAMBDA * ref[kind][1][l][h][q][k]);
            }
          }
        }
      }
    }
  }

  @Test
  void predictGivesTheReferencesNextTokenAtEveryTargetPositionAndCrossHeadsSwitchOff() throws Exception {
    Path folder = EncoderDecoderFolders.write("t5", dir.resolve("t5"), 22);
    CliHarness.Result r = CliHarness.run("predict", "--model", folder.toString(), "--text",
        EncoderDecoderFolders.source("t5"), "--target", EncoderDecoderFolders.target("t5"), "--top", "1");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode p = JSON.readTree(r.out()).get("predictions");
    double[][] logits = EncoderDecoderFolders.logits("t5", 22);
    assertThat(p.size()).isEqualTo(logits.length);
    for (int i = 0; i < logits.length; i++) {
      int best = 0;
      for (int v = 1; v < logits[i].length; v++) {
        best = logits[i][v] > logits[i][best] ? v : best;
      }
      assertThat(p.get(i).get("top").get(0).get("id").asInt()).as("position %d", i).isEqualTo(best);
    }
    CliHarness.Result off = CliHarness.run("attention", "--model", folder.toString(), "--text",
        EncoderDecoderFolders.source("t5"), "--target", EncoderDecoderFolders.target("t5"), "--disable-cross", "2-3");
    assertThat(off.exit()).as(off.err()).isZero();
    JsonNode json = JSON.readTree(off.out());
    assertThat(json.get("disabled").get("cross").get(0).asText()).isEqualTo("2-3");
    for (JsonNode row : json.get("cross_attention").get(1).get(2)) {
      for (JsonNode v : row) {
        assertThat(v.asDouble()).isZero();
      }
    }
  }

  @Test
  void htmlWritesThePageWithTheThreeKindsToSwitchBetween() throws Exception {
    Path folder = EncoderDecoderFolders.write("bart", dir.resolve("bart"), 25);
    Path page = dir.resolve("page.html");
    CliHarness.Result r = CliHarness.run("html", "--model", folder.toString(), "--text", EncoderDecoderFolders.source("bart"),
        "--target", EncoderDecoderFolders.target("bart"), "--out", page.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String html = java.nio.file.Files.readString(page);
    assertThat(html).contains("\"source\":\"encoder-decoder\"").contains("\"name\":\"encoder\"")
        .contains("\"name\":\"decoder\"").contains("\"name\":\"cross\"");
  }

  /** The .npz under BertViz's names round-trips: NumPy's layout read back equals the JSON, and html --arrays draws it. */
  @Test
  void npzHoldsTheSameMapsAndHtmlArraysDrawsIt() throws Exception {
    Path folder = EncoderDecoderFolders.write("t5", dir.resolve("t5"), 26);
    Path npz = dir.resolve("maps.npz");
    String[] common = {"attention", "--model", folder.toString(), "--text", EncoderDecoderFolders.source("t5"),
        "--target", EncoderDecoderFolders.target("t5")};
    CliHarness.Result json = CliHarness.run(common);
    String[] withNpz = java.util.Arrays.copyOf(common, common.length + 4);
    withNpz[common.length] = "--format";
    withNpz[common.length + 1] = "npz";
    withNpz[common.length + 2] = "--out";
    withNpz[common.length + 3] = npz.toString();
    CliHarness.Result r = CliHarness.run(withNpz);
    assertThat(r.exit()).as(r.err()).isZero();
    java.util.Map<String, io.headscope.analysis.export.NpzReader.Array> a;
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(npz)) {
      a = io.headscope.analysis.export.NpzReader.read(in);
    }
    JsonNode maps = JSON.readTree(json.out()).get("cross_attention");
    io.headscope.analysis.export.NpzReader.Array cross = a.get("cross_attention");
    assertThat(cross.shape()).containsExactly(2, 4, 7, 7);
    for (int i = 0; i < cross.numbers().length; i++) {
      int l = i / (4 * 49);
      int h = i / 49 % 4;
      // the JSON writes each float32 in its shortest form: read back as a float, it is the same float32
      assertThat((float) cross.numbers()[i]).isEqualTo((float) maps.get(l).get(h).get(i / 7 % 7).get(i % 7).asDouble());
    }
    assertThat(a.get("decoder_tokens").strings()).endsWith("</s>");
    CliHarness.Result page = CliHarness.run("html", "--arrays", npz.toString(), "--out", dir.resolve("p.html").toString());
    assertThat(page.exit()).as(page.err()).isZero();
  }

  @Test
  void everyOtherCommandSaysInOneLineWhyNot() {
    Path folder = EncoderDecoderFolders.write("bart", dir.resolve("bart"), 23);
    for (String[] args : new String[][] {{"attention", "--text", "a b"}, {"lens", "--text", "a b"},
        {"predict", "--text", "a b"}, {"rollout", "--text", "a b"}, {"saliency", "--text", "a b", "--target", "b"}}) {
      String[] full = new String[args.length + 2];
      System.arraycopy(args, 0, full, 0, args.length);
      full[args.length] = "--model";
      full[args.length + 1] = folder.toString();
      CliHarness.Result r = CliHarness.run(full);
      assertThat(r.exit()).as(String.join(" ", args)).isNotZero();
      assertThat(r.err().strip()).as(String.join(" ", args)).contains("BART encoder-decoder").contains("--target")
          .doesNotContain("\n").doesNotContain("Exception");
    }
  }

  @Test
  void aTargetOnASingleStackModelIsOneLine() {
    Path folder = DecoderFolders.write("gemma", dir.resolve("gemma"), 24);
    CliHarness.Result r = CliHarness.run("attention", "--model", folder.toString(), "--text", "a", "--target", "b");
    assertThat(r.exit()).isNotZero();
    assertThat(r.err().strip()).contains("--target is for encoder-decoders").doesNotContain("\n");
  }

  private static void ids(JsonNode got, long[] want) {
    assertThat(got.size()).isEqualTo(want.length);
    for (int i = 0; i < want.length; i++) {
      assertThat(got.get(i).asLong()).as("id %d", i).isEqualTo(want[i]);
    }
  }
}
