package io.headscope.analysis.ablation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.analysis.ablation.HeadImportance;
import io.headscope.analysis.ablation.ImportanceResult;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tables and CSV files from real sweeps of a small random BERT. */
class AblationTablesTest {
  @TempDir static Path dir;
  static BertModel model;
  static AblationResult sweep;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(3, 4, 9).writeTo(dir.resolve("tiny")));
    List<Encoding> inputs = List.of(model.encode("the cat sat on the mat .", null), model.encode("the [MASK] ran .", null));
    sweep = new AblationSweep(model).run(inputs, new AblationSweep.Options(HeadMask.Mode.ZERO, true, 0),
        (s, f) -> {}, () -> false);
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @Test
  void ablationCsvHasOneRowPerHeadThenItsLayerWithStar() throws Exception {
    AblationTable t = AblationTable.of(sweep);
    List<CSVRecord> rows = parse(out -> AblationCsv.ablation(t, out), AblationCsv.ABLATION_HEADER);
    assertThat(rows).hasSize(3 * 5);
    CSVRecord first = rows.get(0);
    assertThat(first.get("layer")).isEqualTo("1");
    assertThat(first.get("head")).isEqualTo("1");
    assertThat(Double.parseDouble(first.get("ablated_logprob"))).isCloseTo(sweep.headLogprob()[0][0], within(1e-6));
    assertThat(Double.parseDouble(first.get("delta_logprob")))
        .isCloseTo(sweep.headLogprob()[0][0] - sweep.baselineLogprob(), within(1e-6));
    assertThat(Double.parseDouble(first.get("delta_acc")))
        .isCloseTo(sweep.headAccuracy()[0][0] - sweep.baselineAccuracy(), within(1e-6));
    CSVRecord layer2 = rows.get(9);
    assertThat(layer2.get("layer")).isEqualTo("2");
    assertThat(layer2.get("head")).isEqualTo("*");
    assertThat(Double.parseDouble(layer2.get("ablated_logprob"))).isCloseTo(sweep.layerLogprob()[1], within(1e-6));
  }

  @Test
  void layerTotalsSumTheHeadsAndHelpfulHeadsAreThoseWithAGain() {
    AblationTable t = AblationTable.of(sweep);
    for (int l = 0; l < 3; l++) {
      double sum = 0;
      for (int h = 0; h < 4; h++) {
        sum += sweep.headLogprob()[l][h] - sweep.baselineLogprob();
      }
      assertThat(t.layerTotals()[l]).isCloseTo(sum, within(1e-12));
    }
    long gains = t.rows().stream().filter(r -> !r.wholeLayer() && r.deltaLogprob() > 0).count();
    assertThat(t.helpfulHeads()).hasSize((int) gains);
    for (int i = 1; i < t.helpfulHeads().size(); i++) {
      var a = t.helpfulHeads().get(i - 1);
      var b = t.helpfulHeads().get(i);
      assertThat(sweep.deltaLogprob(a.layer(), a.head())).isGreaterThanOrEqualTo(sweep.deltaLogprob(b.layer(), b.head()));
    }
  }

  @Test
  void importanceCsvRanksHeadsAndCarriesTheSweepDelta() throws Exception {
    ImportanceResult imp = new HeadImportance(model).run(
        List.of(model.encode("the cat sat on the mat .", null), model.encode("the [MASK] ran .", null)), 0,
        (s, f) -> {}, () -> false);
    ImportanceTable t = ImportanceTable.of(imp, sweep);
    List<CSVRecord> rows = parse(out -> AblationCsv.importance(t, out), AblationCsv.IMPORTANCE_HEADER);
    assertThat(rows).hasSize(12);
    assertThat(rows.stream().map(r -> r.get("rank")).sorted().distinct().count()).isEqualTo(12);
    CSVRecord top = rows.stream().filter(r -> r.get("rank").equals("1")).findFirst().orElseThrow();
    double max = rows.stream().mapToDouble(r -> Double.parseDouble(r.get("importance"))).max().orElseThrow();
    assertThat(Double.parseDouble(top.get("importance"))).isEqualTo(max);
    assertThat(Double.parseDouble(rows.get(5).get("sweep_delta_logprob"))).isCloseTo(sweep.deltaLogprob(1, 1), within(1e-6));
    assertThat(t.spearman()).isBetween(-1.0, 1.0);
    assertThat(ImportanceTable.of(imp, null).spearman()).isNaN();
    assertThat(parse(out -> AblationCsv.importance(ImportanceTable.of(imp, null), out), AblationCsv.IMPORTANCE_HEADER)
        .get(0).get("sweep_delta_logprob")).isEmpty();
  }

  interface Writing {
    void to(java.io.OutputStream out) throws Exception;
  }

  static List<CSVRecord> parse(Writing w, String[] header) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    w.to(out);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).startsWith(String.join(",", header) + "\n");
    return CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get()
        .parse(new StringReader(text)).getRecords();
  }
}
