package io.headscope.analysis.flow;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import java.io.IOException;
import java.io.OutputStream;

/**
 * {@code rollout.json} of {@code headscope rollout} and the app's Information flow view: model, tokens,
 * ids, the heads switched off, which maps, {@code rollout[layer][j][i]} (0-based layer = after layer 1)
 * and, when computed, {@code flow[j][i]} and {@code flowNormalized[j][i]} into the last layer's outputs.
 */
public final class RolloutJson {
  private RolloutJson() {}

  /** @param flow null when not computed (no {@code flow} fields) */
  public static void write(AttentionTrace t, double[][][] rollout, AttentionFlow flow, OutputStream out)
      throws IOException {
    try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeStringField("model", t.model());
      g.writeArrayFieldStart("tokens");
      for (String s : t.tokens()) {
        g.writeString(s);
      }
      g.writeEndArray();
      g.writeFieldName("ids");
      g.writeArray(t.encoding().ids(), 0, t.encoding().ids().length);
      g.writeArrayFieldStart("disabled");
      for (Head h : t.mask().off()) {
        g.writeString(h.toString());
      }
      g.writeEndArray();
      g.writeStringField("maps", t.mapsLabel());
      g.writeArrayFieldStart("rollout");
      for (double[][] layer : rollout) {
        matrix(g, layer);
      }
      g.writeEndArray();
      if (flow != null) {
        g.writeFieldName("flow");
        matrix(g, flow.raw());
        g.writeFieldName("flowNormalized");
        matrix(g, flow.normalized());
      }
      g.writeEndObject();
    }
  }

  private static void matrix(JsonGenerator g, double[][] m) throws IOException {
    g.writeStartArray();
    for (double[] row : m) {
      g.writeStartArray();
      for (double v : row) {
        g.writeNumber((float) v);
      }
      g.writeEndArray();
    }
    g.writeEndArray();
  }
}
