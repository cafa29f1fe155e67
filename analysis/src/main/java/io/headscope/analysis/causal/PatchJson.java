package io.headscope.analysis.causal;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code patch.csv.json}, the description beside {@code patch.csv}: the two inputs and their tokens, the
 * settings, the metric on both inputs and the grids the CSV lists row by row, {@code [layer][cell]} with both
 * indices 0-based (the CSV's layer and head are 1-based): per head, or per stream and token position with the
 * tokens as the cells' labels. With attribution patching: its estimated shares and their Spearman correlation
 * with the exact ones.
 */
public final class PatchJson {
  private PatchJson() {}

  /**
   * What a patching run was asked, for {@link #write}.
   *
   * @param target the target word as given, or null (kl needs none)
   * @param contrast the contrast word, or null
   * @param by {@code --by} as given: head, q, k, v, resid, mlp, ...
   */
  public record About(String model, String cleanText, String corruptedText, String target, String contrast,
      String by) {}

  public static void write(List<PatchResult> results, PatchMetric metric, About about, OutputStream out)
      throws IOException {
    PatchResult first = results.get(0);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("model", about.model());
    m.put("clean", Map.of("text", about.cleanText(), "tokens", first.cleanTokens()));
    m.put("corrupted", Map.of("text", about.corruptedText(), "tokens", first.corruptedTokens()));
    m.put("metric", first.metric());
    m.put("target", about.target());
    m.put("contrast", about.contrast());
    m.put("direction", first.direction().label());
    m.put("by", about.by());
    m.put("cells", first.site().perHead() ? "head" : "position");
    m.put("recovered_definition", metric.recoveredDefinition());
    m.put("clean_value", first.clean());
    m.put("corrupted_value", first.corrupted());
    List<Map<String, Object>> grids = new ArrayList<>();
    for (PatchResult r : results) {
      Map<String, Object> g = new LinkedHashMap<>();
      g.put("site", r.site().label());
      g.put("layers", r.layers());
      g.put(r.site().perHead() ? "heads" : "positions", r.cells());
      g.put("patched", r.patched());
      g.put("recovered", grid(r, false));
      if (r.hasAttribution()) {
        g.put("attribution", grid(r, true));
        g.put("spearman", PatchComparison.of(r, 0).spearman());
      }
      grids.add(g);
    }
    m.put("grids", grids);
    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(new FilterOutputStream(out) {
      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len); // FilterOutputStream would write byte by byte
      }

      @Override
      public void close() throws IOException {
        flush(); // the caller owns the stream
      }
    }, m);
  }

  /** {@code [layer][cell]} of the recovered share, exact or as attribution patching estimates it. */
  private static double[][] grid(PatchResult r, boolean attributed) {
    double[][] g = new double[r.layers()][r.cells()];
    for (int l = 0; l < r.layers(); l++) {
      for (int c = 0; c < r.cells(); c++) {
        g[l][c] = attributed ? r.attributedShare(l, c) : r.recovered(l, c);
      }
    }
    return g;
  }
}
