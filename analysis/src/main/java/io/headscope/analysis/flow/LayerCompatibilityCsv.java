package io.headscope.analysis.flow;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code compat.csv} of {@code headscope layers} and the app's Layers screen: one row per (i, j),
 * {@code from_layer} = i in 0..L (the hidden state fed in), {@code to_layer} = j in 1..L (the first
 * layer that runs on it); log-probabilities are natural logs, the delta is against the intact model.
 */
public final class LayerCompatibilityCsv {
  public static final String[] HEADER = {"from_layer", "to_layer", "logprob", "delta_logprob", "top1_agreement",
      "inputs"};

  private LayerCompatibilityCsv() {}

  public static void write(LayerCompatibility c, OutputStream out) throws IOException {
    try (CSVPrinter p = new CSVPrinter(new OutputStreamWriter(out, StandardCharsets.UTF_8), CSVFormat.DEFAULT.builder()
        .setHeader(HEADER).setRecordSeparator('\n').get())) {
      for (int i = 0; i < c.logprob().length; i++) {
        for (int j = 1; j <= c.logprob()[i].length; j++) {
          p.printRecord(i, j, num(c.logprob()[i][j - 1]), num(c.logprob()[i][j - 1] - c.intact()),
              num(c.top1()[i][j - 1]), c.inputs());
        }
      }
    }
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.6f", v);
  }
}
