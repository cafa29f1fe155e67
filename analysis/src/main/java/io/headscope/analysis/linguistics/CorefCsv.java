package io.headscope.analysis.linguistics;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import org.apache.commons.csv.CSVPrinter;

/** {@code coref.csv} and {@code coref-baselines.csv} of {@code headscope coref}: 1-based heads, six decimals. */
public final class CorefCsv {
  public static final String[] HEADS_HEADER = {"layer", "head", "mention_type", "mentions", "accuracy"};
  public static final String[] BASELINES_HEADER = {"baseline", "mention_type", "mentions", "accuracy"};

  private CorefCsv() {}

  public static void heads(CorefHeads.Result r, OutputStream out) throws IOException {
    try (CSVPrinter p = SyntaxCsv.printer(out, HEADS_HEADER)) {
      for (int l = 0; l < r.layers(); l++) {
        for (int h = 0; h < r.heads(); h++) {
          for (CorefHeads.MentionType t : CorefHeads.MentionType.values()) {
            p.printRecord(l + 1, h + 1, t.label(), r.mentions()[t.ordinal()], value(r.accuracy(l, h, t)));
          }
        }
      }
    }
  }

  public static void baselines(CorefHeads.Result r, OutputStream out) throws IOException {
    try (CSVPrinter p = SyntaxCsv.printer(out, BASELINES_HEADER)) {
      for (Map.Entry<String, long[]> b : r.baselines().entrySet()) {
        for (CorefHeads.MentionType t : CorefHeads.MentionType.values()) {
          p.printRecord(b.getKey(), t.label(), r.mentions()[t.ordinal()], value(r.baselineAccuracy(b.getKey(), t)));
        }
      }
    }
  }

  /** Empty when a type has no mention. */
  private static String value(double v) {
    return Double.isNaN(v) ? "" : SyntaxCsv.num(v);
  }
}
