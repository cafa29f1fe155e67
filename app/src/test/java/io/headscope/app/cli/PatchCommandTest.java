package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.ActivationPatching;
import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchResult;
import io.headscope.analysis.causal.PatchSite;
import io.headscope.model.BertModel;
import io.headscope.model.testing.families.FamilyModelFolders;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;

/** The patch command's CSV contract, its numbers against the service, and its one-line refusals. */
class PatchCommandTest extends OnTinyModel {
  static final String CLEAN = "the king was in paris and [MASK] was a queen .";
  static final String CORRUPTED = "the queen was in paris and [MASK] was a king .";

  @Test
  void byHeadWritesOneRowPerHeadWithOneBasedIndicesAndTheRecoveredShareLast() throws Exception {
    Path out = dir.resolve("heads.csv");
    CliHarness.Result r = CliHarness.run("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--target", "she", "--contrast", "he", "--metric", "logit-diff", "--by", "head", "--attribution",
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("Spearman of attribution with exact patching over 4 heads").contains("disagree most at");
    CSVParser p = parse(out);
    assertThat(p.getHeaderNames()).containsExactly("layer", "head", "clean_logit_diff", "corrupted_logit_diff",
        "patched_logit_diff", "attribution", "recovered");
    List<CSVRecord> rows = p.getRecords();
    assertThat(rows).hasSize(2 * 2);
    assertThat(rows.get(0).get("layer")).isEqualTo("1");
    assertThat(rows.get(0).get("head")).isEqualTo("1");
    assertThat(rows.get(3).get("layer")).isEqualTo("2");
    assertThat(rows.get(3).get("head")).isEqualTo("2");
    try (BertModel m = BertModel.load(io.headscope.model.testing.TinyBert.create(2, 2, 3).writeTo(dir.resolve("again")))) {
      TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, m.tokenizer().singleTokenId("she"),
          m.tokenizer().singleTokenId("he"));
      PatchResult want = new ActivationPatching(m).run(PatchInputs.of(m, CLEAN, CORRUPTED), metric, PatchSite.HEAD,
          PatchDirection.DENOISE);
      for (CSVRecord row : rows) {
        int l = Integer.parseInt(row.get("layer")) - 1;
        int h = Integer.parseInt(row.get("head")) - 1;
        assertThat(Double.parseDouble(row.get("recovered"))).isCloseTo(want.recovered(l, h), within(1e-6));
      }
    }
  }

  @Test
  void byResidWritesEveryStreamLayerAndTokenWithItsLabel() throws Exception {
    Path out = dir.resolve("resid.csv");
    CliHarness.Result r = CliHarness.run("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--target", "she", "--contrast", "he", "--by", "resid", "--direction", "noise", "--out",
        out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    CSVParser p = parse(out);
    assertThat(p.getHeaderNames()).startsWith("stream", "layer", "position", "token").endsWith("recovered");
    List<CSVRecord> rows = p.getRecords();
    int tokens = 13;
    assertThat(rows).hasSize(3 * 2 * tokens);
    assertThat(rows.get(0).get("stream")).isEqualTo("resid_pre");
    assertThat(rows.get(0).get("token")).isEqualTo("[CLS]");
    assertThat(rows.get(2).get("token")).isEqualTo("king");
    assertThat(rows.get(2).get("corrupted_token")).isEqualTo("queen");
    assertThat(rows.get(rows.size() - 1).get("stream")).isEqualTo("resid_post");
    // noising the last layer's output at [MASK] is the corrupted run: nothing of the clean behaviour stays
    CSVRecord mask = rows.get(rows.size() - tokens + 7);
    assertThat(mask.get("token")).isEqualTo("[MASK]");
    assertThat(Double.parseDouble(mask.get("recovered"))).isCloseTo(0.0, within(1e-4));
  }

  @Test
  void inputsOfDifferentLengthsAndBadOptionsGiveOneLine() throws Exception {
    Path out = dir.resolve("never.csv");
    CliHarness.Result r = CliHarness.run("patch", "--model", model.toString(), "--clean", "the [MASK] sat .",
        "--corrupted", "the big [MASK] sat .", "--target", "she", "--out", out.toString());
    assertThat(r.exit()).isNotZero();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("[CLS] the [MASK] sat . [SEP]").contains("[CLS] the big [MASK] sat . [SEP]")
        .doesNotContain("Exception");
    assertThat(out).doesNotExist();
    CliHarness.Result by = CliHarness.run("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--target", "she", "--by", "neuron");
    assertThat(by.exit()).isEqualTo(2);
    assertThat(by.errLines()).hasSize(1);
    CliHarness.Result diff = CliHarness.run("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--target", "she", "--metric", "logit-diff");
    assertThat(diff.exit()).isEqualTo(2);
    assertThat(diff.err()).contains("--contrast");
  }

  @Test
  void aGpt2IsPatchedAtItsNextToken() throws Exception {
    Path gpt2 = dir.resolve("gpt2");
    FamilyModelFolders.write("gpt2", gpt2, 5);
    Path out = dir.resolve("gpt2.csv");
    CliHarness.Result r = CliHarness.run("patch", "--model", gpt2.toString(), "--clean", "the cat sat", "--corrupted",
        "the dog sat", "--target", "t", "--by", "mlp", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(parse(out).getRecords()).isNotEmpty();
  }

  @Test
  void theJsonBesideTheCsvHoldsItsInputsSettingsAndTheSameNumbers() throws Exception {
    Path out = dir.resolve("json-heads.csv");
    CliHarness.Result r = CliHarness.run("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--target", "she", "--contrast", "he", "--attribution", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(dir.resolve("json-heads.csv.json").toFile());
    assertThat(j.get("clean").get("text").asText()).isEqualTo(CLEAN);
    assertThat(j.get("corrupted").get("tokens").get(1).asText()).isEqualTo("the");
    assertThat(j.get("corrupted").get("tokens").get(2).asText()).isEqualTo("queen");
    assertThat(j.get("clean").get("tokens").size()).isEqualTo(13);
    assertThat(j.get("metric").asText()).isEqualTo("logit_diff");
    assertThat(j.get("target").asText()).isEqualTo("she");
    assertThat(j.get("contrast").asText()).isEqualTo("he");
    assertThat(j.get("direction").asText()).isEqualTo("denoise");
    assertThat(j.get("by").asText()).isEqualTo("head");
    assertThat(j.get("recovered_definition").asText()).isEqualTo("(patched - corrupted) / (clean - corrupted)");
    JsonNode grid = j.get("grids").get(0);
    assertThat(grid.get("site").asText()).isEqualTo("head");
    List<CSVRecord> rows = parse(out).getRecords();
    double[] exact = new double[rows.size()];
    double[] attributed = new double[rows.size()];
    for (int i = 0; i < rows.size(); i++) {
      CSVRecord row = rows.get(i);
      int l = Integer.parseInt(row.get("layer")) - 1; // the JSON's grids are 0-based
      int h = Integer.parseInt(row.get("head")) - 1;
      assertThat(j.get("clean_value").asDouble()).isCloseTo(Double.parseDouble(row.get("clean_logit_diff")), within(1e-6));
      assertThat(j.get("corrupted_value").asDouble()).isCloseTo(Double.parseDouble(row.get("corrupted_logit_diff")),
          within(1e-6));
      assertThat(grid.get("patched").get(l).get(h).asDouble()).isCloseTo(
          Double.parseDouble(row.get("patched_logit_diff")), within(1e-6));
      exact[i] = Double.parseDouble(row.get("recovered"));
      attributed[i] = Double.parseDouble(row.get("attribution"));
      assertThat(grid.get("recovered").get(l).get(h).asDouble()).isCloseTo(exact[i], within(1e-6));
      assertThat(grid.get("attribution").get(l).get(h).asDouble()).isCloseTo(attributed[i], within(1e-6));
    }
    assertThat(grid.get("spearman").asDouble()).isCloseTo(
        io.headscope.analysis.ablation.RankCorrelation.spearman(exact, attributed), within(1e-6));
  }

  @Test
  void theResidualStreamsJsonHasAGridPerStreamWithTheTokensAsLabels() throws Exception {
    Path out = dir.resolve("json-resid.csv");
    CliHarness.Result r = CliHarness.run("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--target", "she", "--by", "resid", "--direction", "noise", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(dir.resolve("json-resid.csv.json").toFile());
    assertThat(j.get("by").asText()).isEqualTo("resid");
    assertThat(j.get("cells").asText()).isEqualTo("position");
    assertThat(j.get("contrast").isNull()).isTrue();
    List<String> streams = new java.util.ArrayList<>();
    j.get("grids").forEach(g -> streams.add(g.get("site").asText()));
    assertThat(streams).containsExactly("resid_pre", "resid_mid", "resid_post");
    List<CSVRecord> rows = parse(out).getRecords();
    for (CSVRecord row : rows) {
      JsonNode grid = j.get("grids").get(streams.indexOf(row.get("stream")));
      int l = Integer.parseInt(row.get("layer")) - 1;
      int t = Integer.parseInt(row.get("position"));
      assertThat(j.get("clean").get("tokens").get(t).asText()).isEqualTo(row.get("token"));
      assertThat(j.get("corrupted").get("tokens").get(t).asText()).isEqualTo(row.get("corrupted_token"));
      assertThat(grid.get("recovered").get(l).get(t).asDouble()).as(row.toString())
          .isCloseTo(Double.parseDouble(row.get("recovered")), within(1e-6));
    }
    assertThat(rows).hasSize(3 * 2 * 13);
  }

  @Test
  void klNeedsNoTargetAndItsSharesAreOneMinusTheKlRatio() throws Exception {
    Path out = dir.resolve("kl.csv");
    CliHarness.Result r = CliHarness.run("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--metric", "kl", "--by", "resid", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    CSVParser p = parse(out);
    assertThat(p.getHeaderNames()).containsExactly("stream", "layer", "position", "token", "corrupted_token",
        "clean_kl", "corrupted_kl", "patched_kl", "recovered");
    for (CSVRecord row : p.getRecords()) {
      double kl = Double.parseDouble(row.get("patched_kl"));
      assertThat(Double.parseDouble(row.get("clean_kl"))).isZero();
      assertThat(Double.parseDouble(row.get("recovered"))).isCloseTo(
          1 - kl / Double.parseDouble(row.get("corrupted_kl")), within(1e-6));
      if (row.get("stream").equals("resid_post") && row.get("layer").equals("2")) {
        // the readout sees the last layer's output at [MASK] alone
        assertThat(Double.parseDouble(row.get("recovered"))).isCloseTo(row.get("token").equals("[MASK]") ? 1 : 0,
            within(1e-3));
      }
    }
    JsonNode j = new ObjectMapper().readTree(dir.resolve("kl.csv.json").toFile());
    assertThat(j.get("metric").asText()).isEqualTo("kl");
    assertThat(j.get("target").isNull()).isTrue();
    assertThat(j.get("recovered_definition").asText()).isEqualTo("1 - KL(clean || patched) / KL(clean || corrupted)");
  }

  @Test
  void klWithAContrastOrAttributionAndATargetMetricWithoutItsTargetAreOneLineAndNoFile() throws Exception {
    Path out = dir.resolve("refused.csv");
    for (String[] extra : List.of(new String[] {"--metric", "kl", "--contrast", "he"},
        new String[] {"--metric", "kl", "--target", "she", "--attribution"},
        new String[] {"--metric", "logprob"}, new String[] {"--metric", "entropy", "--target", "she"})) {
      List<String> args = new java.util.ArrayList<>(List.of("patch", "--model", model.toString(), "--clean", CLEAN,
          "--corrupted", CORRUPTED, "--out", out.toString()));
      args.addAll(List.of(extra));
      CliHarness.Result r = CliHarness.run(args.toArray(String[]::new));
      assertThat(r.exit()).as(String.join(" ", extra)).isEqualTo(2);
      assertThat(r.errLines()).as(r.err()).hasSize(1);
      assertThat(r.err()).doesNotContain("Exception");
      assertThat(out).doesNotExist();
      assertThat(dir.resolve("refused.csv.json")).doesNotExist();
    }
  }

  @Test
  void aNameTooLongForTheJsonBesideItIsRefusedBeforeTheWorkAndNothingIsWritten() throws Exception {
    // 235 bytes fit the file system; the JSON's temporary beside it does not
    Path out = dir.resolve("p".repeat(231) + ".csv");
    CliHarness.Result r = CliHarness.run("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--metric", "kl", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).anyMatch(l -> l.contains("too long"));
    assertThat(r.errLines()).as("before the patching").noneMatch(l -> l.contains("exact patching"));
    try (var files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.startsWith("pppp"));
    }
  }

  private static CSVParser parse(Path file) throws Exception {
    Reader reader = Files.newBufferedReader(file);
    return CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(reader);
  }
}
