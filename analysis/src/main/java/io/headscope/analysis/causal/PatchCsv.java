package io.headscope.analysis.causal;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code patch.csv}. Per head (head, q, k, v): {@code layer,head,clean_M,corrupted_M,patched_M[,attribution],recovered}
 * with 1-based layer and head as {@code ablate} writes them. Per position (residual streams, MLP output):
 * {@code stream,layer,position,token,corrupted_token,clean_M,corrupted_M,patched_M,recovered}, the layer
 * 1-based, the position 0-based over the tokens (special tokens included), {@code token} the clean input's.
 * {@code M} is the metric's name ({@code logit_diff}, ...); {@code recovered} is
 * {@code (patched - corrupted) / (clean - corrupted)}; {@code attribution} is attribution patching's estimate
 * of that share.
 */
public final class PatchCsv {
  private PatchCsv() {}

  public static String[] header(PatchResult r) {
    String m = r.metric();
    List<String> h = new ArrayList<>(r.site().perHead()
        ? List.of("layer", "head")
        : List.of("stream", "layer", "position", "token", "corrupted_token"));
    h.addAll(List.of("clean_" + m, "corrupted_" + m, "patched_" + m));
    if (r.hasAttribution()) {
      h.add("attribution");
    }
    h.add("recovered");
    return h.toArray(String[]::new);
  }

  /** One or more results of the same kind of cell (the three streams of {@code --by resid}) in one table. */
  public static void write(List<PatchResult> results, OutputStream out) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    try (CSVPrinter p = new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(header(results.get(0)))
        .setRecordSeparator('\n').get())) {
      for (PatchResult r : results) {
        for (int l = 0; l < r.layers(); l++) {
          for (int c = 0; c < r.cells(); c++) {
            List<Object> row = new ArrayList<>();
            if (r.site().perHead()) {
              row.add(l + 1);
              row.add(c + 1);
            } else {
              row.add(r.site().label());
              row.add(l + 1);
              row.add(c);
              row.add(r.cleanTokens().get(c));
              row.add(r.corruptedTokens().get(c));
            }
            row.add(num(r.clean()));
            row.add(num(r.corrupted()));
            row.add(num(r.patched()[l][c]));
            if (r.hasAttribution()) {
              row.add(num(r.attributedShare(l, c)));
            }
            row.add(num(r.recovered(l, c)));
            p.printRecord(row);
          }
        }
      }
    }
  }

  /** Eight significant digits, as the sweep's CSV. */
  static String num(double v) {
    return String.format(Locale.ROOT, "%.8g", v);
  }
}
