package io.headscope.app.gui.head;

import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.UiColor;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * BertViz's head view: query tokens on the left, key tokens on the right, a line from each query to
 * each key whose opacity and width follow the value. Hovering a token shows only its lines.
 */
public final class LinesPane extends Canvas {
  private double row = 18;
  static final double COL_WIDTH = 110;
  static final double GAP = 220;
  private HeadMatrix matrix;
  private int hovered = -1; // row index within the matrix, or -1
  private boolean hoveredIsKey;

  public LinesPane() {
    setId("head-lines");
    setWidth(COL_WIDTH * 2 + GAP);
  }

  void show(HeadMatrix m) {
    matrix = m;
    hovered = -1;
    redraw();
  }

  /** Which token is at (x, y): {index in block, 0 = query column / 1 = key column}, or null. */
  int[] tokenAt(double x, double y) {
    if (matrix == null) {
      return null;
    }
    int i = (int) ((y - 4) / row);
    if (x < COL_WIDTH && i >= 0 && i < matrix.rows()) {
      return new int[] {i, 0};
    }
    if (x > COL_WIDTH + GAP && i >= 0 && i < matrix.cols()) {
      return new int[] {i, 1};
    }
    return null;
  }

  void highlight(int index, boolean key) {
    hovered = index;
    hoveredIsKey = key;
    redraw();
  }

  private void redraw() {
    GraphicsContext g = getGraphicsContext2D();
    int n = matrix == null ? 0 : Math.max(matrix.rows(), matrix.cols());
    row = n == 0 ? 18 : Math.max(6, Math.min(18, 7900.0 / n)); // stay under the Canvas size limit
    setHeight(Math.max(40, n * row + 8));
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, getWidth(), getHeight());
    if (matrix == null) {
      return;
    }
    double x0 = COL_WIDTH;
    double x1 = COL_WIDTH + GAP;
    double max = Math.max(1e-9, matrix.max());
    for (int i = 0; i < matrix.rows(); i++) {
      for (int j = 0; j < matrix.cols(); j++) {
        boolean on = hovered < 0 || (!hoveredIsKey && hovered == i) || (hoveredIsKey && hovered == j);
        double v = matrix.values()[i][j] / max;
        if (!on || v < 0.02) {
          continue;
        }
        g.setStroke(hovered >= 0 ? FxColors.of(UiColor.LINE_HOVER, Math.min(1, v)) : FxColors.of(UiColor.LINE, Math.min(1, v * 0.8)));
        g.setLineWidth(hovered >= 0 ? 1 + 3 * v : 0.5 + 2 * v);
        g.strokeLine(x0, y(i), x1, y(j));
      }
    }
    g.setFont(Font.font(Math.min(12, row - 2)));
    g.setTextBaseline(VPos.CENTER);
    g.setTextAlign(TextAlignment.RIGHT);
    for (int i = 0; i < matrix.rows(); i++) {
      g.setFill(!hoveredIsKey && hovered == i ? FxColors.of(UiColor.LINE_HOVER) : Color.BLACK);
      g.fillText(matrix.rowTokens().get(i), x0 - 6, y(i));
    }
    g.setTextAlign(TextAlignment.LEFT);
    for (int j = 0; j < matrix.cols(); j++) {
      g.setFill(hoveredIsKey && hovered == j ? FxColors.of(UiColor.LINE_HOVER) : Color.BLACK);
      g.fillText(matrix.colTokens().get(j), x1 + 6, y(j));
    }
  }

  private double y(int i) {
    return 4 + (i + 0.5) * row;
  }
}
