package io.headscope.analysis.flow;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.headscope.model.core.Head;
import java.io.IOException;
import java.io.OutputStream;

/** The JSON of {@code jacobian}: one validated {@link TokenJacobian} in, the documented fields out. */
public final class JacobianJson {
  private JacobianJson() {}

  public static void write(String model, TokenJacobian j, OutputStream out) throws IOException {
    try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeStringField("model", model);
      g.writeArrayFieldStart("tokens");
      for (String s : j.input().tokens()) {
        g.writeString(s);
      }
      g.writeEndArray();
      g.writeFieldName("ids");
      g.writeArray(j.input().ids(), 0, j.input().ids().length);
      g.writeArrayFieldStart("disabled");
      for (Head h : j.mask().off()) {
        g.writeString(h.toString());
      }
      g.writeEndArray();
      g.writeStringField("method", j.method().label());
      g.writeNumberField("samples", j.samples());
      g.writeNumberField("seed", j.seed());
      g.writeArrayFieldStart("jacobian");
      for (double[][] layer : j.norms()) {
        g.writeStartArray();
        for (double[] row : layer) {
          g.writeStartArray();
          for (double v : row) {
            g.writeNumber((float) v);
          }
          g.writeEndArray();
        }
        g.writeEndArray();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("correlations");
      for (MapCorrelation c : j.correlations()) {
        g.writeStartObject();
        g.writeNumberField("layer", c.layer());
        number(g, "spearmanAttention", c.spearmanAttention());
        number(g, "pearsonAttention", c.pearsonAttention());
        number(g, "spearmanNorm", c.spearmanNorm());
        number(g, "pearsonNorm", c.pearsonNorm());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
  }

  /** A correlation is undefined (NaN) when one side is constant: JSON has no NaN, so null. */
  private static void number(JsonGenerator g, String name, double v) throws IOException {
    if (Double.isNaN(v)) {
      g.writeNullField(name);
    } else {
      g.writeNumberField(name, v);
    }
  }
}
