package io.headscope.analysis.export;

import io.headscope.analysis.distance.HeadDistances;
import io.headscope.model.core.Head;
import io.headscope.model.store.SafeFiles;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The {@code head-distances} CSV: one row per ordered pair of different heads, both (a, b) and (b, a)
 * (the value is the same: the divergence is symmetric; writing both lets a reader filter on either
 * column), layer by layer and head by head of a, then of b; 1-based. The divergence is in nats with
 * nine decimals (it lies in [0, ln 2], so small values keep their significant digits).
 */
public final class HeadDistanceCsv {
  public static final List<String> HEADER = List.of("layer_a", "head_a", "layer_b", "head_b", "js_divergence");

  private HeadDistanceCsv() {}

  /** Writes {@code file} atomically; refuses an existing file unless {@code overwrite}. */
  public static void write(Path file, boolean overwrite, HeadDistances d) {
    SafeFiles.writeAtomically(file, overwrite, out -> write(d, out));
  }

  public static void write(HeadDistances d, OutputStream out) throws IOException {
    // 20,592 rows for bert-base of plain numbers: no quoting needed, so no CSV library in the loop
    BufferedWriter w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
    w.write(String.join(",", HEADER));
    w.write('\n');
    double[][] js = d.divergence();
    for (int a = 0; a < d.count(); a++) {
      Head ha = d.head(a);
      for (int b = 0; b < d.count(); b++) {
        if (a == b) {
          continue;
        }
        Head hb = d.head(b);
        w.write(String.format(Locale.ROOT, "%d,%d,%d,%d,%.9f\n", ha.layer() + 1, ha.head() + 1, hb.layer() + 1,
            hb.head() + 1, js[a][b]));
      }
    }
    w.flush();
  }
}
