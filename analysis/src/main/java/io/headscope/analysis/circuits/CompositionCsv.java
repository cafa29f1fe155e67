package io.headscope.analysis.circuits;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * {@code headscope composition}'s CSV: one row per pair whose sender's layer is before the receiver's,
 * sender layer by layer and head by head, then receiver; indices 1-based.
 */
public final class CompositionCsv {
  public static final String HEADER = "sender_layer,sender_head,receiver_layer,receiver_head,score";

  private CompositionCsv() {}

  /** Writes to {@code out} and flushes it, leaving it open. */
  public static void write(CompositionResult r, OutputStream out) throws IOException {
    BufferedWriter w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
    write(r, w);
    w.flush();
  }

  public static void write(CompositionResult r, Appendable out) throws IOException {
    out.append(HEADER).append('\n');
    for (int l1 = 0; l1 < r.layers(); l1++) {
      for (int i = 0; i < r.heads(); i++) {
        for (int l2 = l1 + 1; l2 < r.layers(); l2++) {
          for (int j = 0; j < r.heads(); j++) {
            out.append(String.format(Locale.ROOT, "%d,%d,%d,%d,%.9f\n", l1 + 1, i + 1, l2 + 1, j + 1,
                r.score(l1, i, l2, j)));
          }
        }
      }
    }
  }
}
