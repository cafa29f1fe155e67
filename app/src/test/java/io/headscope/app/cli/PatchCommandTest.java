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

  private static CSVParser parse(Path file) throws Exception {
    Reader reader = Files.newBufferedReader(file);
    return CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(reader);
  }
}
