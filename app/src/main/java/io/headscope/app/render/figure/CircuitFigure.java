package io.headscope.app.render.figure;

import io.headscope.analysis.circuits.CircuitEdge;
import io.headscope.analysis.circuits.CircuitNode;
import io.headscope.analysis.circuits.EdgeScores;
import java.util.List;
import java.util.Locale;

/**
 * The Circuits screen's graph for a paper: embeddings left, one column per layer (heads top to bottom, the MLP
 * under them), logits right, laid out by {@link CircuitLayout} as the screen lays it out; the drawn edges are
 * exactly the screen's (top N over the threshold), one line each, width and opacity by |score|, colour by the
 * input entered, dashed where the score is positive. The title block names the method and the ablation.
 */
public final class CircuitFigure {
  /** The colours of the inputs an edge enters: q, k, v, and MLP or logits (the screen's). */
  public static final int Q = 0xe07b00;
  public static final int K = 0x2e9e44;
  public static final int V = 0x7b3fb5;
  public static final int OTHER = 0x737373;
  private static final double GRAPH_WIDTH = 760;

  private CircuitFigure() {}

  public static int colour(CircuitEdge e) {
    return switch (e.input()) {
      case Q -> Q;
      case K -> K;
      case V -> V;
      default -> OTHER;
    };
  }

  /**
   * @param shown the indices (into {@code s}'s edges) of the drawn edges, largest |score| first
   * @param ablation the ablation of the scores as the screen names it ("corrupted", "mean over 3 corrupted inputs")
   * @param input the clean and the corrupted input, as typed
   */
  public static Figure of(String model, String input, String ablation, EdgeScores s, List<Integer> shown,
      int layers, int heads) {
    double max = 0;
    for (int i : shown) {
      max = Math.max(max, Math.abs(s.score(i)));
    }
    String method = s.method().toUpperCase(Locale.ROOT);
    String what = String.format(Locale.ROOT, "the top %d of %d edges by |%s| (%s ablation; %s clean %.3f, "
        + "corrupted %.3f)", shown.size(), s.edges().size(), method, ablation, s.metric(), s.clean(), s.corrupted());
    String key = "colour: the input entered (q orange, k green, v purple, MLP and logits grey); width: |score|; "
        + "dashed: a positive score (the edge works against the behaviour)";
    Header header = Header.of(model + " · circuit graph", List.of(what, key), input, GRAPH_WIDTH);
    double top = header.height();
    double graphHeight = Math.max(240, heads * 22.0 + 2 * CircuitLayout.MARGIN + 20);
    double width = Math.max(GRAPH_WIDTH, header.width());
    double height = top + graphHeight + 20 + Header.MARGIN;
    CircuitLayout lay = new CircuitLayout(layers, heads, CircuitLayout.groupsOf(s.edges(), heads), width, graphHeight);
    final double scale = max;
    return new Figure(header.titleText(), what, width, height, g -> {
      header.draw(g);
      // the smallest first, so the largest are drawn on top (as on the screen)
      for (int k = shown.size() - 1; k >= 0; k--) {
        int i = shown.get(k);
        CircuitEdge e = s.edges().get(i);
        double[] seg = lay.segment(e);
        double a = scale > 0 ? Math.abs(s.score(i)) / scale : 0;
        double w = 0.8 + 5 * a;
        if (s.score(i) > 0) {
          g.dashedLine(seg[0], top + seg[1], seg[2], top + seg[3], colour(e), 0.35 + 0.6 * a, w, 6);
        } else {
          g.line(seg[0], top + seg[1], seg[2], top + seg[3], colour(e), 0.35 + 0.6 * a, w);
        }
      }
      double spacing = lay.columnX(1) - lay.columnX(0);
      for (int l = 0; l < layers; l++) {
        double[] first = lay.at(CircuitNode.head(l, 0));
        g.text((spacing >= 26 || l == 0 ? "L" : "") + (l + 1), first[0], top + 14, 10, false, 0x404040,
            Surface.Anchor.MIDDLE, 0);
        for (int h = 0; h < heads; h++) {
          double[] p = lay.at(CircuitNode.head(l, h));
          g.dot(p[0], top + p[1], 4, 0xd0d6e0, 0x8a94a3, 0.5);
        }
        for (int kv = 0; lay.grouped() && kv < lay.groups(); kv++) {
          double[] p = lay.at(CircuitNode.group(l, kv));
          g.fill(p[0] - 3, top + p[1] - 3, 6, 6, 0x8a94a3);
        }
        double[] mlp = lay.at(CircuitNode.mlp(l));
        g.fill(mlp[0] - 4, top + mlp[1] - 4, 8, 8, 0xb8c0cc);
      }
      double[] emb = lay.at(CircuitNode.EMBEDDINGS);
      double[] out = lay.at(CircuitNode.LOGITS);
      g.fill(emb[0] - 5, top + emb[1] - 5, 10, 10, 0x5b6b80);
      g.fill(out[0] - 5, top + out[1] - 5, 10, 10, 0x5b6b80);
      g.text("embed", emb[0], top + emb[1] - 9, 10, false, 0x404040, Surface.Anchor.MIDDLE, 0);
      // under its node: the edges into the logits come from the upper left and would cross a label above it
      g.text("logits", out[0], top + out[1] + 18, 10, false, 0x404040, Surface.Anchor.MIDDLE, 0);
      g.text("heads 1 to " + heads + " top to bottom" + (lay.grouped() ? " (k, v: their key/value group, the small "
          + "square at their left)" : "") + "; the layer's MLP under them", width / 2, top + graphHeight + 4, 10,
          false, 0x404040, Surface.Anchor.MIDDLE, 0);
      // the legend as filled swatches (not lines: every line of the figure is an edge)
      double x = Header.MARGIN;
      double y = top + graphHeight + 12;
      String[] names = {"q", "k", "v", "MLP, logits"};
      int[] colours = {Q, K, V, OTHER};
      for (int c = 0; c < names.length; c++) {
        g.fill(x, y, 14, 4, colours[c]);
        g.text(names[c], x + 18, y + 5, 10, false, 0x202020, Surface.Anchor.START, 0);
        x += 18 + g.textWidth(names[c], 10, false) + 12;
      }
    }).headedBy(header);
  }
}
