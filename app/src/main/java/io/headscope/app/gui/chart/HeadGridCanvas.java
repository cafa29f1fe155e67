package io.headscope.app.gui.chart;

import io.headscope.model.core.Head;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import java.util.function.Consumer;
import java.util.function.DoubleFunction;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * A canvas that draws one cell per head, layers down and heads across, under a row of head numbers and
 * beside a column of layer names: a click opens the head, the pointer reads it out. The geometry of the
 * last drawing ({@link #startGrid}) answers which head is where.
 */
public abstract class HeadGridCanvas extends Canvas {
  /** The room left of the cells (the layer names) and above them (the head numbers). */
  public static final double LEFT = 30;
  public static final double TOP = 18;
  private double left;
  private double top;
  private double cell;
  private int layers;
  private int heads;

  /** The head under a point of the canvas, or null outside the grid (or with nothing drawn). */
  public Head headAt(double x, double y) {
    if (layers == 0 || x < left || y < top) {
      return null;
    }
    int l = (int) ((y - top) / cell);
    int h = (int) ((x - left) / cell);
    return l < layers && h < heads ? new Head(l, h) : null;
  }

  /** What a click and the pointer over a head do (null: outside the grid). */
  public void onHead(Consumer<Head> onClick, Consumer<Head> onHover) {
    setOnMouseClicked(e -> {
      Head h = headAt(e.getX(), e.getY());
      if (h != null) {
        onClick.accept(h);
      }
    });
    setOnMouseMoved(e -> onHover.accept(headAt(e.getX(), e.getY())));
    setOnMouseExited(e -> onHover.accept(null));
  }

  /** Nothing to show: the canvas takes no room. */
  protected void drawNothing() {
    layers = 0;
    heads = 0;
    setWidth(1);
    setHeight(1);
    getGraphicsContext2D().clearRect(0, 0, 1, 1);
  }

  /**
   * Sizes the canvas to layers x heads cells below a row of head numbers and beside the layer names, on
   * white, keeps the geometry for {@link #headAt}, and returns the pen set for centred text.
   */
  protected GraphicsContext startGrid(int layers, int heads, double left, double top, double cell) {
    this.layers = layers;
    this.heads = heads;
    this.left = left;
    this.top = top;
    this.cell = cell;
    setWidth(left + heads * cell + 4);
    setHeight(top + layers * cell + 4);
    GraphicsContext g = getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, getWidth(), getHeight());
    g.setTextAlign(TextAlignment.CENTER);
    g.setTextBaseline(VPos.CENTER);
    g.setFont(Font.font(10));
    g.setFill(FxColors.of(UiColor.TEXT_SOFT));
    for (int h = 0; h < heads; h++) {
      g.fillText(String.valueOf(h + 1), left + (h + 0.5) * cell, top / 2);
    }
    for (int l = 0; l < layers; l++) {
      g.fillText("L" + (l + 1), left / 2, top + (l + 0.5) * cell);
    }
    return g;
  }

  /**
   * Fills each head's cell with its value's colour (light grey where the value is NaN: none) and, where a
   * cell is at least {@code labelFrom} wide, writes the value's label in it, white on dark colours, black on
   * light; the font is {@code fontShare} of the cell, 10 at most.
   */
  protected static void paintCells(GraphicsContext g, double[][] values, double left, double top, double cell,
      double fontShare, double labelFrom, DoubleFunction<Color> colour, DoubleFunction<String> label) {
    g.setFont(Font.font(Math.min(10, cell * fontShare)));
    for (int l = 0; l < values.length; l++) {
      for (int h = 0; h < values[l].length; h++) {
        double v = values[l][h];
        double x = left + h * cell;
        double y = top + l * cell;
        Color c = Double.isNaN(v) ? Color.gray(0.9) : colour.apply(v);
        g.setFill(c);
        g.fillRect(x, y, cell - 1, cell - 1);
        if (cell >= labelFrom && !Double.isNaN(v)) {
          g.setFill(c.getBrightness() < 0.6 ? Color.WHITE : Color.BLACK);
          g.fillText(label.apply(v), x + cell / 2, y + cell / 2);
        }
      }
    }
  }

  /** Outlines the opened head dashed, inside its cell; nothing when no head is open or it is off the grid. */
  protected static void outlineOpened(GraphicsContext g, Head opened, int layers, int heads, double left, double top,
      double cell) {
    if (opened != null && opened.layer() < layers && opened.head() < heads) {
      g.setLineWidth(2);
      g.setStroke(FxColors.of(UiColor.SELECTED));
      g.setLineDashes(3, 2);
      g.strokeRect(left + opened.head() * cell + 2, top + opened.layer() * cell + 2, cell - 5, cell - 5);
      g.setLineDashes();
    }
  }
}
