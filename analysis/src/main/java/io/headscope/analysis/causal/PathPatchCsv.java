package io.headscope.analysis.causal;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code patch --by path}'s CSV: one row per sender head, {@code layer,head,patched,recovered}, 1-based,
 * {@code patched} the metric after step (b), {@code recovered} {@code (patched - corrupted) / (clean -
 * corrupted)}; numbers with eight significant digits, as {@link PatchCsv}.
 */
public final class PathPatchCsv {
  public static final List<String> HEADER = List.of("layer", "head", "patched", "recovered");

  private PathPatchCsv() {}

  public static void write(PathPatchResult r, OutputStream out) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    try (CSVPrinter p = new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(HEADER.toArray(String[]::new))
        .setRecordSeparator('\n').get())) {
      for (int l = 0; l < r.senderLayers(); l++) {
        for (int h = 0; h < r.heads(); h++) {
          p.printRecord(l + 1, h + 1, PatchCsv.num(r.patched()[l][h]), PatchCsv.num(r.recovered(l, h)));
        }
      }
    }
  }
}
