package io.headscope.app.gui.chart;

import io.headscope.app.gui.style.FxColors;
import io.headscope.app.gui.style.FxImages;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.Palette;
import io.headscope.app.render.UiColor;
import javafx.geometry.Rectangle2D;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.Pane;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * The large heatmap: the map scaled without smoothing, query tokens down the left, key tokens along
 * the top. The pane has the size of the whole map at the current cell size (so its scroll pane scrolls
 * over all of it), but only the visible part is drawn: one canvas the size of the viewport, moved to
 * where the viewport is. A 512-token map at 40 pixels a cell costs the same to draw as the window, and
 * the token labels stay in view while the map scrolls under them (as a spreadsheet's frozen headers).
 */
public final class HeatmapPane extends Pane {
  public static final double LABEL = 90;
  /** The margin when cells are too small for labels: room for the "N tokens" note only. */
  public static final double SMALL_LABEL = 30;
  /** The smallest cell, in pixels, at which the token labels are drawn. */
  public static final double LABELLED_CELL = 6;
  private final Canvas canvas = new Canvas();
  private HeadMatrix matrix;
  /** One pixel per cell, computed once per matrix (zoom and scroll reuse it). */
  private WritableImage image;
  /** Cells max-pooled to the drawn size when a cell is under a pixel, for the size it was made for. */
  private WritableImage pooled;
  private int pooledSide;
  private boolean diverging;
  private double cellWidth = 16;
  private double cellHeight = 16;
  private Rectangle2D visible = new Rectangle2D(0, 0, 800, 600);
  /** The label strips' width: {@link #LABEL} with labels, {@link #SMALL_LABEL} without. */
  private double label = LABEL;
  private int hoverRow = -1;
  private int hoverCol = -1;
  /** Per-column values drawn as a thin strip between the column labels and the cells (null: none). */
  private double[] strip;
  private double stripMax = 1;
  /** The strip's height, and the room it takes from the column labels. */
  public static final double STRIP = 7;

  public HeatmapPane() {
    setId("head-heatmap");
    getChildren().add(canvas);
    canvas.setManaged(false);
    canvas.setMouseTransparent(true);
  }

  /** The matrix drawn (its axis labels are its tokens, or words), or null. */
  /**
   * Draws the cells above the diagonal (a key after its query) as not allowed: hatched grey, not the
   * white of zero attention. For a causal model's maps (GPT-2).
   */
  public void setCausal(boolean causal) {
    if (causal != this.causal) {
      this.causal = causal;
      redraw();
    }
  }

  private boolean causal;

  public HeadMatrix matrix() {
    return matrix;
  }

  /**
   * Shows a matrix at a cell size; {@code diverging} draws signed values on the diverging scale
   * (−max red … 0 white … +max blue) instead of 0 white … max navy.
   */
  public void show(HeadMatrix m, double cellW, double cellH, boolean signed) {
    if (m != matrix || signed != diverging) {
      matrix = m;
      diverging = signed;
      image = m == null ? null : FxImages.heatmap(m.values(), m.max(), false, signed);
      pooled = null;
      hoverRow = -1;
      hoverCol = -1;
    }
    cellWidth = cellW;
    cellHeight = cellH;
    label = margin(cellW, cellH);
    if (m == null) {
      setPrefSize(10, 10);
      setMinSize(10, 10);
    } else {
      double w = label + m.cols() * cellW + 4;
      double h = label + m.rows() * cellH + 4;
      setPrefSize(w, h);
      setMinSize(w, h);
      setMaxSize(w, h);
    }
    redraw();
  }

  /** Grey with diagonal hatching over the visible cells whose key comes after the query. */
  private void hatchLaterKeys(GraphicsContext g, double x0, double y0, int r0, int r1, int c0, int c1) {
    g.setFill(Color.gray(0.9));
    for (int i = r0; i < r1; i++) {
      int first = Math.max(c0, matrix.rowOffset() + i + 1 - matrix.colOffset()); // first later key in this row
      if (first >= c1) {
        continue;
      }
      g.fillRect(label + first * cellWidth - x0, label + i * cellHeight - y0, (c1 - first) * cellWidth, cellHeight);
    }
    if (cellWidth >= 4 && cellHeight >= 4) {
      g.setStroke(Color.gray(0.72));
      g.setLineWidth(1);
      for (int i = r0; i < r1; i++) {
        for (int j = Math.max(c0, matrix.rowOffset() + i + 1 - matrix.colOffset()); j < c1; j++) {
          double x = label + j * cellWidth - x0;
          double y = label + i * cellHeight - y0;
          g.strokeLine(x, y + cellHeight, x + cellWidth, y);
        }
      }
    }
  }

  /** The label strips' width at a cell size: token labels need {@link #LABEL}, no labels much less. */
  public static double margin(double cellW, double cellH) {
    return cellW >= LABELLED_CELL && cellH >= LABELLED_CELL ? LABEL : SMALL_LABEL;
  }

  /** The part of the pane in view (pane coordinates); only this part is drawn. */
  public void setVisibleArea(Rectangle2D area) {
    if (!area.equals(visible)) {
      visible = area;
      redraw();
    }
  }

  /** Outlines the cell under the pointer and its row and column labels. */
  public void hover(int row, int col) {
    if (row != hoverRow || col != hoverCol) {
      hoverRow = row;
      hoverCol = col;
      redraw();
    }
  }

  public double cellWidth() {
    return cellWidth;
  }

  /**
   * A thin strip over the columns, one signed value per column on the diverging scale from -max to +max
   * (the head view's token saliency), or none with null. It sits in the column labels' margin, against the
   * cells, so each value is under its token's label.
   */
  public void setColumnStrip(double[] values, double max) {
    strip = values == null ? null : values.clone();
    stripMax = max > 0 ? max : 1;
    redraw();
  }

  /** The strip's values (for tests), or null. */
  public double[] columnStrip() {
    return strip == null ? null : strip.clone();
  }

  public double cellHeight() {
    return cellHeight;
  }

  /** Cell under a point in pane coordinates: {row, col}, negative when outside the map or on the labels. */
  public int[] cellAt(double x, double y) {
    if (matrix == null || x - visible.getMinX() < label || y - visible.getMinY() < label) {
      return new int[] {-1, -1};
    }
    int col = (int) ((x - label) / cellWidth);
    int row = (int) ((y - label) / cellHeight);
    return row >= 0 && col >= 0 && row < matrix.rows() && col < matrix.cols() ? new int[] {row, col} : new int[] {-1, -1};
  }

  /** The canvas (for tests): never larger than the visible area. */
  Canvas canvas() {
    return canvas;
  }

  private void redraw() {
    double paneW = getPrefWidth();
    double paneH = getPrefHeight();
    // the canvas covers the visible part of the pane, no more
    double x0 = Math.max(0, Math.min(visible.getMinX(), paneW));
    double y0 = Math.max(0, Math.min(visible.getMinY(), paneH));
    double w = Math.max(1, Math.min(visible.getWidth(), paneW - x0));
    double h = Math.max(1, Math.min(visible.getHeight(), paneH - y0));
    canvas.relocate(x0, y0);
    canvas.setWidth(Math.ceil(w));
    canvas.setHeight(Math.ceil(h));
    GraphicsContext g = canvas.getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, canvas.getWidth(), canvas.getHeight());
    if (matrix == null) {
      return;
    }
    int rows = matrix.rows();
    int cols = matrix.cols();
    // map cells in view: pane x = label + j * cellWidth, canvas x = pane x - x0
    int c0 = clamp((int) Math.floor(x0 / cellWidth), cols);
    int c1 = clamp((int) Math.ceil((x0 + w - label) / cellWidth), cols);
    int r0 = clamp((int) Math.floor(y0 / cellHeight), rows);
    int r1 = clamp((int) Math.ceil((y0 + h - label) / cellHeight), rows);
    g.setImageSmoothing(false);
    if (c1 > c0 && r1 > r0) {
      WritableImage src = image;
      double sx = c0;
      double sy = r0;
      double sw = c1 - c0;
      double sh = r1 - r0;
      if (cellWidth < 1 || cellHeight < 1) {
        // under a pixel per cell, nearest-neighbour scaling would drop cells: max-pool to the shown size
        int side = Math.max(1, (int) Math.max(cols * cellWidth, rows * cellHeight));
        if (pooled == null || pooledSide != side) {
          float[][] p = diverging ? Palette.pooledSigned(matrix.values(), side) : Palette.pooled(matrix.values(), side);
          pooled = FxImages.heatmap(p, matrix.max(), false, diverging);
          pooledSide = side;
        }
        src = pooled;
        double fx = pooled.getWidth() / cols;
        double fy = pooled.getHeight() / rows;
        sx *= fx;
        sw *= fx;
        sy *= fy;
        sh *= fy;
      }
      g.drawImage(src, sx, sy, sw, sh, label + c0 * cellWidth - x0, label + r0 * cellHeight - y0,
          (c1 - c0) * cellWidth, (r1 - r0) * cellHeight);
    }
    if (causal && c1 > c0 && r1 > r0) {
      hatchLaterKeys(g, x0, y0, r0, r1, c0, c1);
    }
    g.setStroke(Color.gray(0.6));
    g.strokeRect(label - x0, label - y0, cols * cellWidth, rows * cellHeight);
    if (hoverRow >= 0 && hoverCol >= 0 && hoverRow < rows && hoverCol < cols) {
      g.setStroke(FxColors.of(UiColor.CURSOR));
      g.setLineWidth(2);
      g.strokeRect(label + hoverCol * cellWidth - x0, label + hoverRow * cellHeight - y0, cellWidth, cellHeight);
      g.setLineWidth(1);
      g.setStroke(FxColors.of(UiColor.CURSOR, 0.5));
      g.strokeRect(label - x0, label + hoverRow * cellHeight - y0, cols * cellWidth, cellHeight);
      g.strokeRect(label + hoverCol * cellWidth - x0, label - y0, cellWidth, rows * cellHeight);
    }
    // the label strips stay at the viewport's left and top edges
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, label, canvas.getHeight());
    g.fillRect(0, 0, canvas.getWidth(), label);
    boolean striped = strip != null && strip.length == cols;
    if (striped) {
      for (int j = c0; j < c1; j++) {
        double x = label + j * cellWidth - x0;
        if (x + cellWidth > label) {
          g.setFill(FxColors.diverging(strip[j], stripMax));
          double left = Math.max(x, label);
          g.fillRect(left, label - STRIP - 1, x + cellWidth - left, STRIP);
        }
      }
      g.setStroke(Color.gray(0.75));
      g.setLineWidth(1);
      g.strokeRect(label - x0, label - STRIP - 1, cols * cellWidth, STRIP);
      g.setFill(Color.WHITE);
      g.fillRect(0, label - STRIP - 2, label, STRIP + 2);
    }
    if (cellWidth < LABELLED_CELL || cellHeight < LABELLED_CELL) {
      g.setFill(Color.gray(0.3));
      g.setFont(Font.font(11));
      g.setTextAlign(TextAlignment.LEFT);
      g.setTextBaseline(VPos.BASELINE);
      g.fillText(rows + " × " + cols + " tokens: zoom in (Ctrl+wheel) to read them", 4, 14);
      return;
    }
    g.setFont(Font.font(Math.min(12, Math.max(7, cellHeight * 0.75))));
    g.setTextAlign(TextAlignment.RIGHT);
    g.setTextBaseline(VPos.CENTER);
    for (int i = r0; i < r1; i++) {
      double y = label + (i + 0.5) * cellHeight - y0;
      if (y > label) {
        g.setFill(i == hoverRow ? FxColors.of(UiColor.HOVER_TOKEN) : Color.BLACK);
        g.fillText(clip(matrix.rowTokens().get(i)), label - 4, y);
      }
    }
    g.setFont(Font.font(Math.min(12, Math.max(7, cellWidth * 0.75))));
    g.setTextAlign(TextAlignment.LEFT);
    for (int j = c0; j < c1; j++) {
      double x = label + (j + 0.5) * cellWidth - x0;
      if (x > label) {
        g.setFill(j == hoverCol ? FxColors.of(UiColor.HOVER_TOKEN) : Color.BLACK);
        g.save();
        g.translate(x, label - 4 - (striped ? STRIP + 1 : 0));
        g.rotate(-90);
        g.fillText(clip(matrix.colTokens().get(j)), 0, 0);
        g.restore();
      }
    }
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, label, label);
  }

  private static int clamp(int v, int n) {
    return Math.max(0, Math.min(n, v));
  }

  private static String clip(String s) {
    return s.length() > 12 ? s.substring(0, 11) + "…" : s;
  }

  /** The part of a scroll pane's content in view, in the content's coordinates. */
  public static Rectangle2D visibleArea(javafx.scene.control.ScrollPane sp, javafx.scene.layout.Region content) {
    javafx.geometry.Bounds vp = sp.getViewportBounds();
    double cw = content.getPrefWidth();
    double ch = content.getPrefHeight();
    double h = sp.getHmax() > sp.getHmin() ? (sp.getHvalue() - sp.getHmin()) / (sp.getHmax() - sp.getHmin()) : 0;
    double v = sp.getVmax() > sp.getVmin() ? (sp.getVvalue() - sp.getVmin()) / (sp.getVmax() - sp.getVmin()) : 0;
    double x = Math.max(0, cw - vp.getWidth()) * h;
    double y = Math.max(0, ch - vp.getHeight()) * v;
    return new Rectangle2D(x, y, Math.max(1, vp.getWidth()), Math.max(1, vp.getHeight()));
  }
}
