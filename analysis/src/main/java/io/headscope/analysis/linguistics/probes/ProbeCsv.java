package io.headscope.analysis.linguistics.probes;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/** {@code relations-probes.csv} of {@code headscope syntax --probe-train}: one row per probe. */
public final class ProbeCsv {
  public static final String[] HEADER = {"probe", "train_sentences", "test_items", "accuracy", "l2", "seed"};

  private ProbeCsv() {}

  /** Accuracy with six decimals (empty when the treebank had no usable item); l2 as written in the grid. */
  public static void write(List<ProbeResult> results, OutputStream out) throws IOException {
    try (CSVPrinter p = new CSVPrinter(new OutputStreamWriter(out, StandardCharsets.UTF_8),
        CSVFormat.DEFAULT.builder().setHeader(HEADER).setRecordSeparator('\n').get())) {
      for (ProbeResult r : results) {
        p.printRecord(r.probe(), r.trainSentences(), r.testItems(),
            Double.isNaN(r.accuracy()) ? "" : String.format(Locale.ROOT, "%.6f", r.accuracy()),
            BigDecimal.valueOf(r.l2()).stripTrailingZeros().toPlainString(), r.seed());
      }
    }
  }
}
