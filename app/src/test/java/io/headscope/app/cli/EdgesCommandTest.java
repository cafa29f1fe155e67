package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.circuits.Ablation;
import io.headscope.analysis.circuits.CircuitEdge;
import io.headscope.analysis.circuits.EdgeAnalysis;
import io.headscope.analysis.circuits.EdgeScores;
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

/** {@code edges} and {@code circuit}: their CSVs against the service, their one-line refusals. */
class EdgesCommandTest extends OnTinyModel {
  static final String CLEAN = "the king was in paris and [MASK] was a queen .";
  static final String CORRUPTED = "the queen was in paris and [MASK] was a king .";

  @Test
  void eapWritesEveryEdgeLargestFirstAsTheServiceScoresIt() throws Exception {
    Path out = dir.resolve("eap.csv");
    CliHarness.Result r = run("edges", "--method", "eap", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<CSVRecord> rows = rows(out, "sender", "receiver", "input", "score");
    EdgeScores want = service().eap();
    assertThat(rows).hasSize(want.edges().size());
    double last = Double.POSITIVE_INFINITY;
    for (CSVRecord row : rows) {
      CircuitEdge e = CircuitEdge.parse(row.get("sender") + "->" + row.get("receiver") + (row.get("input").length() == 1
          ? ":" + row.get("input") : ""), 2, 2);
      double s = Double.parseDouble(row.get("score"));
      assertThat(s).isCloseTo(want.score(want.edges().indexOf(e)), within(1e-5 * Math.max(1, Math.abs(s))));
      assertThat(Math.abs(s)).isLessThanOrEqualTo(last);
      last = Math.abs(s);
    }
  }

  @Test
  void exactPatchesTheNamedEdges() throws Exception {
    Path out = dir.resolve("exact.csv");
    CliHarness.Result r = run("edges", "--method", "exact", "--edges", "1-2->2-1:v,embed->logits", "--out",
        out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<CSVRecord> rows = rows(out, "sender", "receiver", "input", "score");
    assertThat(rows).hasSize(2);
    EdgeAnalysis a = service();
    for (CSVRecord row : rows) {
      String label = row.get("sender") + "->" + row.get("receiver") + (row.get("input").equals("v") ? ":v" : "");
      double want = a.exact(List.of(CircuitEdge.parse(label, 2, 2))).score(0);
      assertThat(Double.parseDouble(row.get("score"))).isCloseTo(want, within(1e-5 * Math.max(1, Math.abs(want))));
    }
  }

  @Test
  void circuitWritesTheFaithfulnessCurveAndTheChecks() throws Exception {
    Path out = dir.resolve("circuit.csv");
    Path checks = dir.resolve("checks.csv");
    CliHarness.Result r = run("circuit", "--method", "eap-ig", "--steps", "3", "--faithfulness", "0,4,1000", "--check",
        "3", "--checks-out", checks.toString(), "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<CSVRecord> rows = rows(out, "edges", "metric", "kept");
    EdgeAnalysis a = service();
    int all = a.graph().edges().size();
    assertThat(rows).extracting(x -> x.get("edges")).containsExactly("0", "4", String.valueOf(all));
    assertThat(Double.parseDouble(rows.get(2).get("metric"))).isCloseTo(a.clean(), within(1e-4));
    assertThat(Double.parseDouble(rows.get(0).get("metric"))).isCloseTo(a.corrupted(), within(1e-4));
    assertThat(rows(checks, "sender", "receiver", "input", "estimate", "exact")).hasSize(3);
    assertThat(r.err()).contains("Spearman");
  }

  @Test
  void badInputIsOneLineExitTwoAndNoFile() throws Exception {
    Path out = dir.resolve("refused.csv");
    Path set = dir.resolve("set.txt");
    Files.writeString(set, "the queen was in paris and [MASK] was a very long king .\n");
    List<String[]> cases = List.of(new String[] {"edges", "--method", "eapx"}, new String[] {"edges", "--edges",
        "1-1->2-1:q"}, new String[] {"edges", "--method", "exact", "--edges", "2-1->1-1:q"},
        new String[] {"edges", "--method", "exact", "--edges", "9-1->logits"}, new String[] {"edges", "--metric", "kl"},
        new String[] {"edges", "--ablation", "mean"}, new String[] {"edges", "--ablation", "zero"},
        new String[] {"edges", "--corrupted-set", set.toString()}, new String[] {"edges", "--steps", "0"},
        new String[] {"edges", "--ablation", "mean", "--corrupted-set", dir.resolve("none.txt").toString()},
        new String[] {"edges", "--ablation", "mean", "--corrupted-set", set.toString()},
        new String[] {"circuit", "--method", "exact"}, new String[] {"circuit", "--faithfulness", "10,x"});
    for (String[] c : cases) {
      List<String> args = new ArrayList<>(List.of(c));
      args.addAll(List.of("--out", out.toString()));
      CliHarness.Result r = run(args.toArray(String[]::new));
      assertThat(r.exit()).as(String.join(" ", c) + ": " + r.err()).isNotZero();
      assertThat(r.errLines()).as(String.join(" ", c) + ": " + r.err()).hasSize(1);
      assertThat(r.err()).doesNotContain("Exception");
      assertThat(out).doesNotExist();
    }
  }

  @Test
  void aGroupedQueryModelsKAndVEdgesAreNamedByTheirKeyValueGroupInTheCsvAndOnTheCommandLine() throws Exception {
    // a tiny Llama: 2 layers, 4 query heads sharing 2 key/value heads (docs/METHODS.md, "Edges")
    Path llama = io.headscope.model.decoders.DecoderFolders.llama(dir.resolve("llama"), 5);
    Path out = dir.resolve("llama.csv");
    List<String> common = List.of("--model", llama.toString(), "--clean", "a cab 12345", "--corrupted", "a cab 54321",
        "--target", "a", "--contrast", "1");
    List<String> args = new ArrayList<>(List.of("edges", "--method", "exact", "--edges", "1-2->2-g1:k,embed->2-3:q"));
    args.addAll(common);
    args.addAll(List.of("--out", out.toString()));
    CliHarness.Result r = CliHarness.run(args.toArray(String[]::new));
    assertThat(r.exit()).as(r.err()).isZero();
    List<CSVRecord> rows = rows(out, "sender", "receiver", "input", "score");
    assertThat(rows).extracting(x -> x.get("sender") + "->" + x.get("receiver") + ":" + x.get("input"))
        .containsExactlyInAnyOrder("1-2->2-g1:k", "embed->2-3:q");
    List<String> refused = new ArrayList<>(List.of("edges", "--method", "exact", "--edges", "1-2->2-1:k"));
    refused.addAll(common);
    refused.addAll(List.of("--out", dir.resolve("refused-llama.csv").toString()));
    CliHarness.Result no = CliHarness.run(refused.toArray(String[]::new));
    assertThat(no.exit()).isNotZero();
    assertThat(no.errLines()).as(no.err()).hasSize(1);
    assertThat(no.err()).contains("2-g1:k").doesNotContain("Exception");
    assertThat(dir.resolve("refused-llama.csv")).doesNotExist();
  }

  private static CliHarness.Result run(String command, String... extra) {
    List<String> args = new ArrayList<>(List.of(command, "--model", model.toString(), "--clean", CLEAN, "--corrupted",
        CORRUPTED, "--target", "she", "--contrast", "he"));
    args.addAll(List.of(extra));
    return CliHarness.run(args.toArray(String[]::new));
  }

  private static CliHarness.Result run(String[] all) {
    return run(all[0], java.util.Arrays.copyOfRange(all, 1, all.length));
  }

  private static EdgeAnalysis service() {
    BertModel m = BertModel.load(TinyBert.create(2, 2, 3).writeTo(dir.resolve("again-" + System.nanoTime())));
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, m.tokenizer().singleTokenId("she"),
        m.tokenizer().singleTokenId("he"));
    return EdgeAnalysis.of(m, PatchInputs.of(m, CLEAN, CORRUPTED), metric, Ablation.CORRUPTED, null);
  }

  private static List<CSVRecord> rows(Path file, String... header) throws Exception {
    try (Reader reader = Files.newBufferedReader(file);
        CSVParser p = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(reader)) {
      assertThat(p.getHeaderNames()).containsExactly(header);
      return p.getRecords();
    }
  }
}
