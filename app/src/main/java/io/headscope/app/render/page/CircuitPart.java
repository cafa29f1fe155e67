package io.headscope.app.render.page;

import com.fasterxml.jackson.core.JsonGenerator;
import io.headscope.analysis.circuits.CircuitEdge;
import io.headscope.analysis.circuits.CircuitNode;
import io.headscope.analysis.circuits.EdgeAnalysis;
import io.headscope.analysis.circuits.EdgeScores;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The interactive page's circuit graph (issue 43): the top edges of one EAP or EAP-IG run, the first few with
 * their exact patch beside the estimate, as the page's {@code circuit} object; the page draws them as an SVG
 * (no library, no network), as the app's Circuits screen draws the same records.
 *
 * @param groupSize query heads per key/value group (1 unless grouped-query: k and v edges then enter a group,
 *     drawn left of its layer's column at the middle of its heads, as on the Circuits screen)
 * @param edges the drawn edges, largest |score| first
 */
public record CircuitPart(int layers, int heads, int groupSize, String method, String ablation, String metric, double clean,
    double corrupted, int total, List<Edge> edges) {

  /** One drawn edge: its estimate and, for the first ones, its exact patch (NaN when not run). */
  public record Edge(CircuitEdge edge, double estimate, double exact) {}

  public CircuitPart {
    edges = List.copyOf(edges);
  }

  /** The {@code top} edges of {@code s} by |score|; the first {@code checks} of them patched exactly with {@code a}. */
  public static CircuitPart of(EdgeAnalysis a, EdgeScores s, int layers, int heads, int top, int checks) {
    List<Edge> out = new ArrayList<>();
    int[] order = s.top(top);
    for (int k = 0; k < order.length; k++) {
      CircuitEdge e = s.edges().get(order[k]);
      double exact = k < checks ? a.exact(List.of(e)).score(0) : Double.NaN;
      out.add(new Edge(e, s.score(order[k]), exact));
    }
    return new CircuitPart(layers, heads, a.graph().groupSize(), s.method(), s.ablation().label(), s.metric(), s.clean(), s.corrupted(),
        s.edges().size(), out);
  }

  void write(JsonGenerator g) throws IOException {
    g.writeObjectFieldStart("circuit");
    g.writeNumberField("layers", layers);
    g.writeNumberField("heads", heads);
    g.writeNumberField("groupSize", groupSize);
    g.writeStringField("method", method);
    g.writeStringField("ablation", ablation);
    g.writeStringField("metric", metric);
    g.writeNumberField("clean", clean);
    g.writeNumberField("corrupted", corrupted);
    g.writeNumberField("total", total);
    g.writeArrayFieldStart("edges");
    for (Edge e : edges) {
      g.writeStartObject();
      g.writeStringField("label", e.edge().label());
      node(g, "from", e.edge().sender());
      node(g, "to", e.edge().receiver());
      g.writeStringField("input", e.edge().input().label());
      g.writeNumberField("estimate", e.estimate());
      if (!Double.isNaN(e.exact())) {
        g.writeNumberField("exact", e.exact());
      }
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void node(JsonGenerator g, String name, CircuitNode n) throws IOException {
    g.writeObjectFieldStart(name);
    g.writeStringField("kind", n.kind().name().toLowerCase(java.util.Locale.ROOT));
    g.writeNumberField("layer", n.layer());
    g.writeNumberField("head", n.head());
    g.writeStringField("label", n.label());
    g.writeEndObject();
  }
}
