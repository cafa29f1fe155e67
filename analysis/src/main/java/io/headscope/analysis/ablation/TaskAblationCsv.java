package io.headscope.analysis.ablation;

import io.headscope.analysis.ablation.TaskResult;
import io.headscope.analysis.ablation.TaskScores;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code task-ablation.csv}: one row per head (1-based), and with --layers one row per whole layer (head
 * {@code *}) after that layer's heads, as {@code ablation.csv}. Accuracy and macro-F1 are shares in
 * [0,1]; loglik is the mean natural log of the gold class's probability; deltas are ablated minus intact;
 * {@code inputs} is the number of labelled inputs scored.
 */
public final class TaskAblationCsv {
  public static final String[] HEADER = {"layer", "head", "baseline_accuracy", "ablated_accuracy",
      "delta_accuracy", "baseline_f1", "ablated_f1", "delta_f1", "baseline_loglik", "ablated_loglik", "delta_loglik",
      "inputs"};

  private TaskAblationCsv() {}

  public static void write(TaskResult r, OutputStream out) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    try (CSVPrinter p = new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(HEADER).setRecordSeparator('\n')
        .get())) {
      for (int l = 0; l < r.layers(); l++) {
        for (int h = 0; h < r.heads(); h++) {
          row(p, l + 1, String.valueOf(h + 1), r.baseline(), r.headScores()[l][h], r.inputs());
        }
        if (r.hasLayers()) {
          row(p, l + 1, "*", r.baseline(), r.layerScores()[l], r.inputs());
        }
      }
    }
  }

  private static void row(CSVPrinter p, int layer, String head, TaskScores base, TaskScores s, int inputs)
      throws IOException {
    p.printRecord(layer, head, num(base.accuracy()), num(s.accuracy()), num(s.accuracy() - base.accuracy()),
        num(base.macroF1()), num(s.macroF1()), num(s.macroF1() - base.macroF1()), num(base.loglik()),
        num(s.loglik()), num(s.loglik() - base.loglik()), inputs);
  }

  private static String num(double v) {
    return AblationCsv.num(v);
  }
}
