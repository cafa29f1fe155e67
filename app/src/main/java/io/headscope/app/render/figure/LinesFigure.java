package io.headscope.app.render.figure;

import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.LineSelection;
import java.util.List;

/**
 * BertViz's line drawing for a paper: query tokens left, key tokens right, the strongest lines per
 * token ({@link LineSelection}), opacity and width following the weight; a whole layer overlaid in
 * one colour per head, with a legend.
 */
public final class LinesFigure {
  private static final double COL = 120;
  private static final double GAP = 240;

  private LinesFigure() {}

  public static Figure of(List<HeadMatrix> heads, Caption caption) {
    HeadMatrix first = heads.get(0);
    int n = Math.max(first.rows(), first.cols());
    double row = Math.max(6, Math.min(16, 4000.0 / Math.max(1, n)));
    boolean overlay = heads.size() > 1;
    int k = LineSelection.perQuery(n, heads.size());
    List<LineSelection.Line> lines = LineSelection.strongest(heads, k);
    String what = (overlay ? "all " + heads.size() + " heads of layer " + (first.head().layer() + 1)
        : "head " + first.head()) + ": " + HeadFigure.what(first) + "; the " + k + " strongest keys per query at ≥ "
        + Math.round(100 * LineSelection.MIN_SHARE) + "% of the map's maximum (" + lines.size() + " lines)";
    Header header = Header.of(caption.model() + " · " + (overlay ? "layer " + (first.head().layer() + 1)
        : "head " + first.head()) + " as lines", List.of(what, caption.mapsLine()), caption.input(), 2 * COL + GAP + 24);
    double top = header.height() + 8;
    double legend = overlay ? 24 : 0;
    double width = Math.max(2 * COL + GAP + 2 * Header.MARGIN, header.width());
    double height = top + n * row + 8 + legend + Header.MARGIN;
    return new Figure(header.titleText(), what, width, height, s -> {
      header.draw(s);
      double x0 = Header.MARGIN + COL;
      double x1 = x0 + GAP;
      for (LineSelection.Line l : lines) {
        double v = l.share();
        int c = overlay ? LineSelection.headColor(l.head()) : 0x2171B5;
        s.line(x0, top + (l.query() + 0.5) * row, x1, top + (l.key() + 0.5) * row, c, Math.min(1, 0.15 + 0.85 * v),
            0.5 + 2 * v);
      }
      double fs = Math.min(11, row - 2);
      for (int i = 0; i < first.rows(); i++) {
        s.text(first.rowTokens().get(i), x0 - 6, top + (i + 0.5) * row + fs * 0.35, fs, false, 0, Surface.Anchor.END, 0);
      }
      for (int j = 0; j < first.cols(); j++) {
        s.text(first.colTokens().get(j), x1 + 6, top + (j + 0.5) * row + fs * 0.35, fs, false, 0, Surface.Anchor.START, 0);
      }
      if (overlay) {
        double x = Header.MARGIN;
        double y = top + n * row + 14;
        for (int h = 0; h < heads.size(); h++) {
          s.fill(x, y, 10, 10, LineSelection.headColor(h));
          String label = heads.get(h).head().toString();
          s.text(label, x + 13, y + 9, 10, false, 0, Surface.Anchor.START, 0);
          x += 13 + s.textWidth(label, 10, false) + 10;
        }
      }
    }).headedBy(header);
  }
}
