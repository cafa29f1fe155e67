package io.headscope.analysis.ablation;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code ablation.csv} and {@code importance.csv}. Layers and heads are 1-based; a whole-layer row
 * of the sweep has {@code *} as its head. Log-probabilities are natural logs; {@code acc} is a share
 * in [0,1]; deltas are ablated minus intact.
 */
public final class AblationCsv {
  public static final String[] ABLATION_HEADER = {"layer", "head", "baseline_logprob", "ablated_logprob",
      "delta_logprob", "baseline_acc", "ablated_acc", "delta_acc"};
  public static final String[] IMPORTANCE_HEADER = {"layer", "head", "importance", "importance_normalized",
      "rank", "sweep_delta_logprob"};

  private AblationCsv() {}

  public static void ablation(AblationTable t, OutputStream out) throws IOException {
    try (CSVPrinter p = printer(out, ABLATION_HEADER)) {
      for (AblationTable.Row r : t.rows()) {
        p.printRecord(r.layer(), r.wholeLayer() ? "*" : String.valueOf(r.head()), num(r.baselineLogprob()),
            num(r.ablatedLogprob()), num(r.deltaLogprob()), num(r.baselineAcc()), num(r.ablatedAcc()),
            num(r.deltaAcc()));
      }
    }
  }

  /** {@code sweep_delta_logprob} is empty when no sweep was run. */
  public static void importance(ImportanceTable t, OutputStream out) throws IOException {
    try (CSVPrinter p = printer(out, IMPORTANCE_HEADER)) {
      for (ImportanceTable.Row r : t.rows()) {
        p.printRecord(r.layer(), r.head(), num(r.importance()), num(r.normalized()), r.rank(),
            Double.isNaN(r.sweepDeltaLogprob()) ? "" : num(r.sweepDeltaLogprob()));
      }
    }
  }

  private static CSVPrinter printer(OutputStream out, String[] header) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    return new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(header).setRecordSeparator('\n').get());
  }

  /** Eight significant digits: far below the sweep's float32 noise, short enough to read. */
  static String num(double v) {
    return String.format(Locale.ROOT, "%.8g", v);
  }
}
