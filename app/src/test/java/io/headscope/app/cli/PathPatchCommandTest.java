package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchMetric;
import io.headscope.analysis.causal.PathPatchResult;
import io.headscope.analysis.causal.PathPatching;
import io.headscope.analysis.causal.PathReceiver;
import io.headscope.model.BertModel;
import io.headscope.model.testing.TinyBert;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;

/** {@code patch --by path}: issue 43's CSV contract, its numbers against the service, its one-line refusals. */
class PathPatchCommandTest extends OnTinyModel {
  static final String CLEAN = "the king was in paris and [MASK] was a queen .";
  static final String CORRUPTED = "the queen was in paris and [MASK] was a king .";

  @Test
  void intoTheLogitsOneRowPerSenderHeadLayerHeadPatchedRecovered() throws Exception {
    Path out = dir.resolve("path-logits.csv");
    CliHarness.Result r = run("--receivers", "logits", "--direction", "noise", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<CSVRecord> rows = rows(out, "layer", "head", "patched", "recovered");
    assertThat(rows).hasSize(2 * 2);
    assertThat(rows.get(3).get("layer")).isEqualTo("2");
    assertThat(rows.get(3).get("head")).isEqualTo("2");
    PathPatchResult want = service(List.of(PathReceiver.LOGITS), PatchDirection.NOISE);
    for (CSVRecord row : rows) {
      int l = Integer.parseInt(row.get("layer")) - 1;
      int h = Integer.parseInt(row.get("head")) - 1;
      double patched = Double.parseDouble(row.get("patched"));
      assertThat(patched).isCloseTo(want.patched()[l][h], within(1e-6));
      assertThat(Double.parseDouble(row.get("recovered"))).isCloseTo(want.recovered(l, h), within(1e-6));
      // the share is the one the two ends give
      assertThat(Double.parseDouble(row.get("recovered")))
          .isCloseTo((patched - want.corrupted()) / (want.clean() - want.corrupted()), within(1e-6));
    }
    JsonNode j = new ObjectMapper().readTree(dir.resolve("path-logits.csv.json").toFile());
    assertThat(j.get("by").asText()).isEqualTo("path");
    assertThat(j.get("receivers").get(0).asText()).isEqualTo("logits");
    assertThat(j.get("clean_value").asDouble()).isCloseTo(want.clean(), within(1e-9));
  }

  @Test
  void intoAHeadsValuesOnlyTheEarlierLayersSend() throws Exception {
    Path out = dir.resolve("path-v.csv");
    CliHarness.Result r = run("--receivers", "2-1:v", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<CSVRecord> rows = rows(out, "layer", "head", "patched", "recovered");
    assertThat(rows).hasSize(2); // layer 1's two heads
    PathPatchResult want = service(List.of(new PathReceiver(1, 0, io.headscope.model.engine.HookPoint.Kind.ATTN_V)),
        PatchDirection.DENOISE);
    assertThat(Double.parseDouble(rows.get(1).get("recovered"))).isCloseTo(want.recovered(0, 1), within(1e-6));
  }

  @Test
  void badReceiversAndMismatchedOptionsAreOneLineExitTwoAndNoFile() throws Exception {
    Path out = dir.resolve("path-refused.csv");
    for (String[] extra : List.of(new String[] {"--receivers", "1-1:q"}, new String[] {"--receivers", "3-1:q"},
        new String[] {"--receivers", "2-1:x"}, new String[] {"--receivers", "logits,2-1:q"},
        new String[] {"--receivers", "logits", "--attribution"}, new String[] {})) {
      List<String> args = new ArrayList<>(List.of("--out", out.toString()));
      args.addAll(List.of(extra));
      CliHarness.Result r = run(args.toArray(String[]::new));
      assertThat(r.exit()).as(String.join(" ", extra) + ": " + r.err()).isEqualTo(2);
      assertThat(r.errLines()).as(r.err()).hasSize(1);
      assertThat(r.err()).doesNotContain("Exception");
      assertThat(out).doesNotExist();
      assertThat(dir.resolve("path-refused.csv.json")).doesNotExist();
    }
    CliHarness.Result alone = CliHarness.run("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--target", "she", "--contrast", "he", "--receivers", "logits");
    assertThat(alone.exit()).isEqualTo(2);
    assertThat(alone.err()).contains("--receivers goes with --by path");
  }

  private static CliHarness.Result run(String... extra) {
    List<String> args = new ArrayList<>(List.of("patch", "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--target", "she", "--contrast", "he", "--metric", "logit-diff", "--by", "path"));
    args.addAll(List.of(extra));
    return CliHarness.run(args.toArray(String[]::new));
  }

  private static PathPatchResult service(List<PathReceiver> receivers, PatchDirection d) {
    try (BertModel m = BertModel.load(TinyBert.create(2, 2, 3).writeTo(dir.resolve("again-" + d + receivers.size()
        + receivers.get(0).label().replace(':', '_'))))) {
      TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, m.tokenizer().singleTokenId("she"),
          m.tokenizer().singleTokenId("he"));
      return new PathPatching(m).run(PatchInputs.of(m, CLEAN, CORRUPTED), PatchMetric.of(metric), receivers, d);
    }
  }

  private static List<CSVRecord> rows(Path file, String... header) throws Exception {
    try (Reader reader = Files.newBufferedReader(file);
        CSVParser p = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(reader)) {
      assertThat(p.getHeaderNames()).containsExactly(header);
      return p.getRecords();
    }
  }
}
