package io.headscope.app.render.figure;

import io.headscope.analysis.circuits.CircuitEdge;
import io.headscope.analysis.circuits.CircuitNode;
import java.util.List;

/**
 * Where the graph's nodes sit in a w x h area: one column per layer (its heads top to bottom, its MLP under
 * them and a little to the right), the embeddings in a column of their own on the left and the logits on the right, both at mid height.
 * An edge is the segment between its two nodes, offset a little by the receiver's input (q above, v below)
 * so that q, k and v edges into one head can be told apart; with grouped-query attention k and v edges enter a
 * key/value group's node, left of the column at the middle of its query heads; hit testing finds the nearest
 * drawn segment. The
 * Circuits screen draws with it and {@link CircuitFigure} writes the same picture as a PNG or SVG figure.
 */
public record CircuitLayout(int layers, int heads, int groups, double width, double height) {
  public static final double MARGIN = 28;

  /** Every head its own keys and values. */
  public CircuitLayout(int layers, int heads, double width, double height) {
    this(layers, heads, heads, width, height);
  }

  /**
   * The key/value groups a list of edges enters (grouped-query attention: one more than the largest group
   * index of a {@link CircuitNode.Kind#GROUP} receiver), else {@code heads}.
   */
  public static int groupsOf(List<CircuitEdge> edges, int heads) {
    int groups = 0;
    for (CircuitEdge e : edges) {
      if (e.receiver().kind() == CircuitNode.Kind.GROUP) {
        groups = Math.max(groups, e.receiver().head() + 1);
      }
    }
    return groups == 0 ? heads : groups;
  }

  /** Whether keys and values are shared by groups of query heads (k and v edges then enter a group's node). */
  public boolean grouped() {
    return groups < heads;
  }

  public double columnX(int column) {
    return MARGIN + column * (width - 2 * MARGIN) / Math.max(1, layers + 1);
  }

  public double rowY(double row) {
    return MARGIN + row * (height - 2 * MARGIN) / Math.max(1, heads);
  }

  /** The node's centre: {x, y}. */
  public double[] at(CircuitNode n) {
    return switch (n.kind()) {
      case EMBEDDINGS -> new double[] {columnX(0), rowY(heads / 2.0)};
      case HEAD -> new double[] {columnX(n.layer() + 1), rowY(n.head())};
      // left of its layer's column, level with the middle of the query heads that share its keys and values
      case GROUP -> new double[] {columnX(n.layer() + 1) - 9, rowY(n.head() * (heads / groups) + (heads / groups - 1) / 2.0)};
      // right of its layer's column, so an edge from a head into its own layer's MLP crosses no other head
      case MLP -> new double[] {(columnX(n.layer() + 1) * 0.6 + columnX(n.layer() + 2) * 0.4), rowY(heads)};
      case LOGITS -> new double[] {columnX(layers + 1), rowY(heads / 2.0)};
    };
  }

  /** The edge's segment {x1, y1, x2, y2}: into a head's q a little above its centre, v a little below. */
  public double[] segment(CircuitEdge e) {
    double[] a = at(e.sender());
    double[] b = at(e.receiver());
    double dy = switch (e.input()) {
      case Q -> -3;
      case V -> 3;
      default -> 0;
    };
    return new double[] {a[0], a[1], b[0], b[1] + dy};
  }

  /** The head node under (x, y) within {@code radius}, else null. */
  public CircuitNode nodeAt(double x, double y, double radius) {
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        CircuitNode n = CircuitNode.head(l, h);
        double[] p = at(n);
        if (Math.hypot(p[0] - x, p[1] - y) <= radius) {
          return n;
        }
      }
    }
    return null;
  }

  /** Of the edges {@code indices} (into {@code edges}), the one nearest (x, y) within {@code within}; -1 if none. */
  public int edgeAt(List<CircuitEdge> edges, List<Integer> indices, double x, double y, double within) {
    int best = -1;
    double bestD = within + 1e-9; // ties go to the first listed: the larger edge, drawn on top
    for (int i : indices) {
      double[] s = segment(edges.get(i));
      double d = distance(s, x, y);
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
    return best;
  }

  public static double distance(double[] s, double x, double y) {
    double dx = s[2] - s[0];
    double dy = s[3] - s[1];
    double len = dx * dx + dy * dy;
    double t = len == 0 ? 0 : Math.max(0, Math.min(1, ((x - s[0]) * dx + (y - s[1]) * dy) / len));
    return Math.hypot(s[0] + t * dx - x, s[1] + t * dy - y);
  }
}
