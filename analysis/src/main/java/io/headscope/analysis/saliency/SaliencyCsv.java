package io.headscope.analysis.saliency;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/** {@code saliency.csv}: one row per token, {@code position} 0-based, {@code score} in the metric's units. */
public final class SaliencyCsv {
  public static final String[] HEADER = {"position", "token", "score"};

  private SaliencyCsv() {}

  public static void write(SaliencyResult r, OutputStream out) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    try (CSVPrinter p = new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(HEADER).setRecordSeparator('\n')
        .get())) {
      for (int q = 0; q < r.tokens().size(); q++) {
        p.printRecord(q, r.tokens().get(q), String.format(Locale.ROOT, "%.8g", r.scores()[q]));
      }
    }
  }
}
