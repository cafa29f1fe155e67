package io.headscope.analysis.causal;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code patch --by path}'s description beside its CSV ({@code FILE.csv.json}), as {@link PatchJson} for the
 * other sites: the inputs and their tokens, the settings, the receivers, the metric on both inputs and the
 * grids {@code [layer][head]} (0-based) of the senders' patched metric and recovered share.
 */
public final class PathPatchJson {
  private PathPatchJson() {}

  public static void write(PathPatchResult r, PatchInputs in, PatchMetric metric, PatchJson.About about,
      OutputStream out) throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("model", about.model());
    m.put("clean", Map.of("text", about.cleanText(), "tokens", in.clean().tokens()));
    m.put("corrupted", Map.of("text", about.corruptedText(), "tokens", in.corrupted().tokens()));
    m.put("metric", r.metric());
    m.put("target", about.target());
    m.put("contrast", about.contrast());
    m.put("direction", r.direction().label());
    m.put("by", "path");
    m.put("receivers", r.receivers().stream().map(PathReceiver::label).toList());
    m.put("senders", "every head of layers 1 to " + r.senderLayers());
    m.put("recovered_definition", metric.recoveredDefinition());
    m.put("clean_value", r.clean());
    m.put("corrupted_value", r.corrupted());
    double[][] shares = new double[r.senderLayers()][r.heads()];
    for (int l = 0; l < r.senderLayers(); l++) {
      for (int h = 0; h < r.heads(); h++) {
        shares[l][h] = r.recovered(l, h);
      }
    }
    m.put("patched", r.patched());
    m.put("recovered", shares);
    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(new FilterOutputStream(out) {
      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
      }

      @Override
      public void close() throws IOException {
        flush(); // the caller owns the stream
      }
    }, m);
  }
}
