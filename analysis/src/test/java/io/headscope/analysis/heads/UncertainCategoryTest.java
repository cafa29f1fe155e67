package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.export.HeadCsv;
import io.headscope.model.core.Head;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;

/**
 * "Uncertain" (issue 32): where the learned model's top probability is under {@link
 * LearnedRule#UNCERTAIN_BELOW} the head is shown and written as uncertain, with its likeliest category
 * and the runner-up from the model's own probabilities (ranked here independently), and a clear map is
 * never uncertain. The maps are hand-made blends of a [SEP] stripe, a previous-token line and an even
 * background, so somewhere between the three the model must hesitate.
 */
class UncertainCategoryTest {
  static final int N = 24;
  static final List<String> TOKENS = tokens();

  static List<String> tokens() {
    List<String> t = new ArrayList<>();
    t.add("[CLS]");
    for (int i = 1; i < N - 1; i++) {
      t.add("w" + i);
    }
    t.add("[SEP]");
    return t;
  }

  /** Each row: {@code alpha} on the final [SEP], {@code 1 - alpha} on the previous token (row 0 on itself). */
  static float[][] blend(double alpha) {
    return blend(alpha, 1 - alpha);
  }

  /** Each row: {@code alpha} on the final [SEP], {@code beta} on the previous token, the rest spread evenly. */
  static float[][] blend(double alpha, double beta) {
    float[][] m = new float[N][N];
    for (int i = 0; i < N; i++) {
      m[i][N - 1] += (float) alpha;
      m[i][Math.max(0, i - 1)] += (float) beta;
      for (int j = 0; j < N; j++) {
        m[i][j] += (float) ((1 - alpha - beta) / N);
      }
    }
    return m;
  }

  static HeadScore score(double alpha) {
    return score(blend(alpha));
  }

  static HeadScore score(float[][] map) {
    float[] norms = new float[N];
    Arrays.fill(norms, 1f);
    return new HeadClassifier(HeadClassifier.Method.LEARNED).score(new Head(0, 0), map, norms, TOKENS, new long[N]);
  }

  @Test
  void aBlendTheModelHesitatesOnIsUncertainWithItsTwoLikeliestCategories() throws Exception {
    HeadScore unsure = null;
    for (int a = 0; a <= 50 && unsure == null; a++) {
      for (int b = 0; a + b <= 50 && unsure == null; b++) {
        HeadScore s = score(blend(a / 50.0, b / 50.0));
        if (s.uncertain()) {
          unsure = s;
        }
      }
    }
    assertThat(unsure).as("some blend of a stripe, a line and an even background is uncertain").isNotNull();
    double[] p = LearnedRule.shipped().probabilities(unsure.features());
    Integer[] order = {0, 1, 2, 3, 4};
    Arrays.sort(order, Comparator.comparingDouble(c -> -p[c]));
    assertThat(p[order[0]]).isLessThan(LearnedRule.UNCERTAIN_BELOW);
    assertThat(unsure.category()).isEqualTo(HeadPattern.values()[order[0]]);
    assertThat(unsure.confidence()).isEqualTo(p[order[0]]);
    assertThat(unsure.runnerUp()).isEqualTo(HeadPattern.values()[order[1]]);
    assertThat(unsure.runnerUpConfidence()).isEqualTo(p[order[1]]);
    assertThat(unsure.shownLabel()).isEqualTo("uncertain");

    // the CSV says uncertain in `category`, keeps the likeliest and the runner-up in their own columns
    HeadSummary summary = HeadSummary.of(unsure, new HeadClassifier(HeadClassifier.Method.LEARNED));
    assertThat(summary.uncertain()).isTrue();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    HeadCsv.write(List.of(summary), out);
    String csv = out.toString(StandardCharsets.UTF_8);
    CSVRecord row = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get()
        .parse(new StringReader(csv)).getRecords().get(0);
    assertThat(row.get("category")).isEqualTo("uncertain");
    assertThat(row.get("likeliest")).isEqualTo(unsure.category().label());
    assertThat(row.get("runner_up")).isEqualTo(unsure.runnerUp().label());
    assertThat(Double.parseDouble(row.get("runner_up_confidence"))).isCloseTo(p[order[1]], org.assertj.core.data.Offset.offset(1e-6));
    HeadSummary back = HeadCsv.read(new StringReader(csv), "test.csv").get(0);
    assertThat(back.uncertain()).isTrue();
    assertThat(back.category()).isEqualTo(unsure.category());
    assertThat(back.runnerUp()).isEqualTo(unsure.runnerUp());
  }

  @Test
  void clearMapsAreNeverUncertain() {
    HeadScore stripe = score(1.0);
    HeadScore line = score(0.0);
    assertThat(stripe.uncertain()).isFalse();
    assertThat(stripe.category()).isEqualTo(HeadPattern.VERTICAL);
    assertThat(line.uncertain()).isFalse();
    assertThat(line.category()).isEqualTo(HeadPattern.DIAGONAL);
  }

  @Test
  void theRuleIsNeverUncertainAndNamesNoRunnerUp() {
    float[] norms = new float[N];
    Arrays.fill(norms, 1f);
    for (int k = 0; k <= 10; k++) {
      HeadScore s = new HeadClassifier(HeadClassifier.Method.RULE).score(new Head(0, 0), blend(k / 10.0), norms, TOKENS,
          new long[N]);
      assertThat(s.uncertain()).isFalse();
      assertThat(s.runnerUp()).isNull();
    }
  }

  @Test
  void aCsvWrittenBeforeTheUncertainColumnsStillReads() throws Exception {
    HeadSummary s = HeadSummary.of(score(1.0), new HeadClassifier(HeadClassifier.Method.LEARNED));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    HeadCsv.write(List.of(s), out);
    // drop the last three columns, as a file written before issue 32 has them
    StringBuilder old = new StringBuilder();
    for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
      List<String> cells = new ArrayList<>(Arrays.asList(line.split(",", -1)));
      old.append(String.join(",", cells.subList(0, cells.size() - 3))).append('\n');
    }
    HeadSummary back = HeadCsv.read(new StringReader(old.toString()), "old.csv").get(0);
    assertThat(back.category()).isEqualTo(HeadPattern.VERTICAL);
    assertThat(back.uncertain()).isFalse();
    assertThat(back.runnerUp()).isNull();
  }
}
