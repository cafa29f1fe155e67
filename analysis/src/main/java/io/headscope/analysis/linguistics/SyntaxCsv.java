package io.headscope.analysis.linguistics;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/** {@code relations.csv} and {@code relations-best.csv} of {@code headscope syntax}: 1-based heads, six decimals. */
public final class SyntaxCsv {
  public static final String[] RELATIONS_HEADER = {"relation", "count", "layer", "head", "direction", "accuracy"};
  public static final String[] BEST_HEADER = {"relation", "count", "best_layer", "best_head", "best_direction",
      "best_accuracy", "baseline_offset", "baseline_accuracy"};

  private SyntaxCsv() {}

  public static void relations(DependencyHeads d, OutputStream out) throws IOException {
    try (CSVPrinter p = printer(out, RELATIONS_HEADER)) {
      for (DependencyHeads.Score s : d.scores()) {
        p.printRecord(s.relation(), s.count(), s.layer(), s.head(), s.direction().label(), num(s.accuracy()));
      }
    }
  }

  public static void best(DependencyHeads d, OutputStream out) throws IOException {
    try (CSVPrinter p = printer(out, BEST_HEADER)) {
      for (DependencyHeads.Best b : d.best()) {
        p.printRecord(b.relation(), b.count(), b.layer(), b.head(), b.direction().label(), num(b.accuracy()),
            b.baselineOffset(), num(b.baselineAccuracy()));
      }
    }
  }

  static CSVPrinter printer(OutputStream out, String[] header) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    return new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(header).setRecordSeparator('\n').get());
  }

  static String num(double v) {
    return String.format(Locale.ROOT, "%.6f", v);
  }
}
