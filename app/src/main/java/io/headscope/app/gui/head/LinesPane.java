package io.headscope.app.gui.head;

import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.LineSelection;
import io.headscope.app.render.UiColor;
import java.util.List;
import javafx.geometry.Rectangle2D;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Pane;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * BertViz's head view: query tokens on the left, key tokens on the right, a line from each query to
 * the keys it attends to most, opacity and width following the weight; hovering a token shows only its
 * lines. Overlaying a whole layer draws each head in its own colour.
 *
 * <p>Long inputs: lines are chosen by {@link LineSelection} (the strongest few per query, above a
 * share of the map's maximum), nothing is drawn while the pane is not shown, and only the part in the
 * scroll pane's view is drawn, on a canvas the size of that view.
 */
public final class LinesPane extends Pane {
  static final double COL_WIDTH = 110;
  static final double GAP = 220;
  private final Canvas canvas = new Canvas();
  private double row = 18;
  private List<HeadMatrix> heads = List.of();
  private List<LineSelection.Line> lines = List.of();
  private int hovered = -1; // row index within the matrix, or -1
  private boolean hoveredIsKey;
  private boolean shown;
  private boolean dirty;
  private boolean overlay;
  private Rectangle2D visible = new Rectangle2D(0, 0, COL_WIDTH * 2 + GAP, 600);

  public LinesPane() {
    setId("head-lines");
    getChildren().add(canvas);
    canvas.setManaged(false);
    canvas.setMouseTransparent(true);
    setPrefWidth(COL_WIDTH * 2 + GAP);
  }

  /** One head, or every head of a layer overlaid (the first matrix names the tokens). */
  void show(List<HeadMatrix> ms) {
    show(ms, ms.size() > 1);
  }

  /**
   * As above; {@code overlay} draws each head in its own colour even when only one is left (the legend
   * of a layer whose other heads are hidden still names the colour).
   */
  void show(List<HeadMatrix> ms, boolean overlay) {
    this.overlay = overlay;
    heads = ms;
    hovered = -1;
    HeadMatrix first = ms.isEmpty() ? null : ms.get(0);
    int n = first == null ? 0 : Math.max(first.rows(), first.cols());
    row = n == 0 ? 18 : Math.max(6, Math.min(18, 7900.0 / n));
    setPrefHeight(Math.max(40, n * row + 8));
    setMinHeight(getPrefHeight());
    lines = first == null ? List.of() : LineSelection.strongest(ms, LineSelection.perQuery(n, ms.size()));
    dirty = true;
    redrawIfShown();
  }

  /** How many lines are drawn, and the rule that chose them (for the note above the pane). */
  String describe() {
    if (heads.isEmpty()) {
      return "";
    }
    int n = Math.max(heads.get(0).rows(), heads.get(0).cols());
    return lines.size() + " lines: the " + LineSelection.perQuery(n, heads.size()) + " strongest per query token"
        + (heads.size() > 1 ? " and head" : "") + " at ≥ " + Math.round(100 * LineSelection.MIN_SHARE)
        + "% of the map's maximum";
  }

  /** Whether the pane is on screen (its tab selected): nothing is drawn before it is. */
  void setShown(boolean on) {
    shown = on;
    redrawIfShown();
  }

  void setVisibleArea(Rectangle2D area) {
    if (!area.equals(visible)) {
      visible = area;
      dirty = true;
      redrawIfShown();
    }
  }

  /** Which token is at (x, y) in pane coordinates: {index in block, 0 = query column / 1 = key column}, or null. */
  int[] tokenAt(double x, double y) {
    if (heads.isEmpty()) {
      return null;
    }
    HeadMatrix m = heads.get(0);
    int i = (int) ((y - 4) / row);
    if (x < COL_WIDTH && i >= 0 && i < m.rows()) {
      return new int[] {i, 0};
    }
    if (x > COL_WIDTH + GAP && i >= 0 && i < m.cols()) {
      return new int[] {i, 1};
    }
    return null;
  }

  void highlight(int index, boolean key) {
    if (index != hovered || key != hoveredIsKey) {
      hovered = index;
      hoveredIsKey = key;
      dirty = true;
      redrawIfShown();
    }
  }

  /** The canvas (for tests): never larger than the view. */
  Canvas canvas() {
    return canvas;
  }

  /** Whether a drawing is waiting for the pane to be shown (for tests). */
  boolean isDirty() {
    return dirty;
  }

  private void redrawIfShown() {
    if (shown && dirty) {
      dirty = false;
      redraw();
    }
  }

  private void redraw() {
    double paneH = getPrefHeight();
    double y0 = Math.max(0, Math.min(visible.getMinY(), paneH));
    double h = Math.max(1, Math.min(visible.getHeight(), paneH - y0));
    canvas.relocate(0, y0);
    canvas.setWidth(COL_WIDTH * 2 + GAP);
    canvas.setHeight(Math.ceil(h));
    GraphicsContext g = canvas.getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, canvas.getWidth(), canvas.getHeight());
    if (heads.isEmpty()) {
      return;
    }
    HeadMatrix m = heads.get(0);
    double x0 = COL_WIDTH;
    double x1 = COL_WIDTH + GAP;
    double top = y0;
    double bottom = y0 + h;
    for (LineSelection.Line line : lines) {
      boolean on = hovered < 0 || (!hoveredIsKey && hovered == line.query()) || (hoveredIsKey && hovered == line.key());
      double ya = y(line.query());
      double yb = y(line.key());
      if (!on || Math.max(ya, yb) < top || Math.min(ya, yb) > bottom) {
        continue;
      }
      double v = line.share();
      Color c = overlay ? FxColors.rgb(LineSelection.headColor(line.head()), Math.min(1, 0.15 + 0.85 * v))
          : hovered >= 0 ? FxColors.of(UiColor.LINE_HOVER, Math.min(1, v)) : FxColors.of(UiColor.LINE, Math.min(1, v * 0.8));
      g.setStroke(c);
      g.setLineWidth(hovered >= 0 ? 1 + 3 * v : 0.5 + 2 * v);
      g.strokeLine(x0, ya - y0, x1, yb - y0);
    }
    g.setFont(Font.font(Math.min(12, row - 2)));
    g.setTextBaseline(VPos.CENTER);
    g.setTextAlign(TextAlignment.RIGHT);
    int first = Math.max(0, (int) ((top - 4) / row) - 1);
    int last = (int) ((bottom - 4) / row) + 1;
    for (int i = first; i < Math.min(last, m.rows()); i++) {
      g.setFill(!hoveredIsKey && hovered == i ? FxColors.of(UiColor.LINE_HOVER) : Color.BLACK);
      g.fillText(m.rowTokens().get(i), x0 - 6, y(i) - y0);
    }
    g.setTextAlign(TextAlignment.LEFT);
    for (int j = first; j < Math.min(last, m.cols()); j++) {
      g.setFill(hoveredIsKey && hovered == j ? FxColors.of(UiColor.LINE_HOVER) : Color.BLACK);
      g.fillText(m.colTokens().get(j), x1 + 6, y(j) - y0);
    }
  }

  private double y(int i) {
    return 4 + (i + 0.5) * row;
  }
}
