package io.headscope.analysis.favor;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code favor.csv}, written by the {@code favor} command and the Linear attention screen alike so the
 * two files are the same bytes: 1-based layers and heads, {@code *} for a whole layer or the model,
 * empty cells for what was not measured (effects without {@code --effect}).
 */
public final class FavorCsv {
  public static final String[] HEADER = {"layer", "head", "features", "kind", "map_error", "map_error_sd",
      "delta_logprob", "off_delta_logprob", "inputs"};

  private FavorCsv() {}

  public static void write(List<FavorAnalysis.Row> rows, OutputStream out) throws IOException {
    try (CSVPrinter p = new CSVPrinter(new OutputStreamWriter(out, StandardCharsets.UTF_8),
        CSVFormat.DEFAULT.builder().setHeader(HEADER).setRecordSeparator('\n').get())) {
      for (FavorAnalysis.Row row : rows) {
        p.printRecord(row.layer() < 0 ? "*" : row.layer(), row.head() < 0 ? "*" : row.head(), row.features(),
            row.kind().label(), num(row.mapError()), num(row.mapErrorSd()), num(row.deltaLogprob()),
            num(row.offDeltaLogprob()), row.inputs());
      }
    }
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6f", v);
  }
}
