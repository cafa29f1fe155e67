package io.headscope.app.gui.head;

import io.headscope.app.gui.style.FxColors;
import io.headscope.app.gui.style.FxImages;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.Palette;
import io.headscope.app.render.UiColor;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * The large heatmap: the map scaled without smoothing, query tokens down the left, key tokens along
 * the top. Cell size is the zoom; the caller puts it in a scroll pane for long inputs.
 */
public final class HeatmapPane extends Canvas {
  static final double LABEL = 90;
  /** The smallest cell, in pixels, at which the token labels are drawn. */
  static final double LABELLED_CELL = 6;
  private HeadMatrix matrix;
  private WritableImage image;
  private double cell = 16;
  private int hoverRow = -1;
  private int hoverCol = -1;

  public HeatmapPane() {
    setId("head-heatmap");
  }

  void show(HeadMatrix m, double cellSize) {
    matrix = m;
    cell = cellSize;
    hoverRow = -1;
    hoverCol = -1;
    // under a pixel per cell, nearest-neighbour scaling would drop cells: max-pool to the shown size first
    image = m == null ? null : FxImages.heatmap(cellSize < 1
        ? Palette.pooled(m.values(), Math.max(1, (int) (Math.max(m.rows(), m.cols()) * cellSize)))
        : m.values(), m.max(), false);
    redraw();
  }

  /** Outlines the cell under the pointer and its row and column labels. */
  void hover(int row, int col) {
    if (row != hoverRow || col != hoverCol) {
      hoverRow = row;
      hoverCol = col;
      redraw();
    }
  }

  double cell() {
    return cell;
  }

  /** Cell under a point in canvas coordinates: {row, col}, negative when outside the map. */
  int[] cellAt(double x, double y) {
    if (matrix == null || x < LABEL || y < LABEL) {
      return new int[] {-1, -1};
    }
    int col = (int) ((x - LABEL) / cell);
    int row = (int) ((y - LABEL) / cell);
    return row < matrix.rows() && col < matrix.cols() ? new int[] {row, col} : new int[] {-1, -1};
  }

  private void redraw() {
    if (matrix == null) {
      setWidth(10);
      setHeight(10);
      getGraphicsContext2D().clearRect(0, 0, 10, 10);
      return;
    }
    setWidth(LABEL + matrix.cols() * cell + 4);
    setHeight(LABEL + matrix.rows() * cell + 4);
    GraphicsContext g = getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, getWidth(), getHeight());
    g.setImageSmoothing(false);
    g.drawImage(image, LABEL, LABEL, matrix.cols() * cell, matrix.rows() * cell);
    g.setStroke(Color.gray(0.6));
    g.strokeRect(LABEL, LABEL, matrix.cols() * cell, matrix.rows() * cell);
    if (hoverRow >= 0 && hoverCol >= 0 && hoverRow < matrix.rows() && hoverCol < matrix.cols()) {
      g.setStroke(FxColors.of(UiColor.CURSOR));
      g.setLineWidth(2);
      g.strokeRect(LABEL + hoverCol * cell, LABEL + hoverRow * cell, cell, cell);
      g.setLineWidth(1);
      g.setStroke(FxColors.of(UiColor.CURSOR, 0.5));
      g.strokeRect(LABEL, LABEL + hoverRow * cell, matrix.cols() * cell, cell);
      g.strokeRect(LABEL + hoverCol * cell, LABEL, cell, matrix.rows() * cell);
    }
    if (cell < LABELLED_CELL) {
      g.setFill(Color.gray(0.3));
      g.setFont(Font.font(11));
      g.setTextAlign(TextAlignment.LEFT);
      g.setTextBaseline(VPos.BASELINE);
      g.fillText("zoom in to read the " + matrix.rows() + " tokens", 4, 14);
      return;
    }
    double fs = Math.min(12, Math.max(7, cell * 0.75));
    g.setFont(Font.font(fs));
    g.setFill(Color.BLACK);
    g.setTextAlign(TextAlignment.RIGHT);
    g.setTextBaseline(VPos.CENTER);
    for (int i = 0; i < matrix.rows(); i++) {
      g.setFill(i == hoverRow ? FxColors.of(UiColor.HOVER_TOKEN) : Color.BLACK);
      g.fillText(clip(matrix.rowTokens().get(i)), LABEL - 4, LABEL + (i + 0.5) * cell);
    }
    g.save();
    g.setTextAlign(TextAlignment.LEFT);
    for (int j = 0; j < matrix.cols(); j++) {
      g.setFill(j == hoverCol ? FxColors.of(UiColor.HOVER_TOKEN) : Color.BLACK);
      g.save();
      g.translate(LABEL + (j + 0.5) * cell, LABEL - 4);
      g.rotate(-90);
      g.fillText(clip(matrix.colTokens().get(j)), 0, 0);
      g.restore();
    }
    g.restore();
  }

  private static String clip(String s) {
    return s.length() > 12 ? s.substring(0, 11) + "…" : s;
  }
}
