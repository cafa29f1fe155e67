package io.headscope.app.gui.chart;

import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import io.headscope.model.core.Head;
import java.util.Locale;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.text.Font;

/**
 * Layers x heads of a signed number on the diverging scale symmetric about 0 (blue above, red below; the
 * full scale at full strength unless a cell goes further), the number written in each cell when there is
 * room, the opened head outlined. The Patching screen shows shares on it (full scale 1: all of the
 * clean-corrupted difference), the Logit lens screen direct logits (full scale 0: the largest cell).
 */
public final class SignedHeadGrid extends HeadGridCanvas {
  private double[][] values = new double[0][0];
  private double cell = 28;
  private double top = TOP;
  private Head opened;
  /** The value drawn at full colour, unless a cell goes further. */
  private double fullScale = 1;
  /** The columns' names when they are token positions (null: heads, numbered). */
  private java.util.List<String> columns;

  public void show(double[][] v, Head open, double maxWidth) {
    show(v, open, maxWidth, null);
  }

  /** The value drawn at full colour: 1 for shares (the default), 0 to scale to the largest cell. */
  public void setFullScale(double scale) {
    fullScale = scale;
  }

  /** As above; {@code columnLabels} names the columns (token positions) instead of head numbers. */
  public void show(double[][] v, Head open, double maxWidth, java.util.List<String> columnLabels) {
    values = v;
    opened = open;
    columns = columnLabels;
    if (v.length > 0) {
      cell = Math.max(columnLabels == null ? 12 : 8, Math.min(34, (maxWidth - LEFT - 8) / v[0].length));
    }
    top = TOP;
    if (columnLabels != null) {
      double longest = 0;
      for (String c : columnLabels) {
        longest = Math.max(longest, c.length());
      }
      top = Math.min(90, 8 + 6.5 * longest);
    }
    redraw();
  }



  /** A share in two decimals without the leading zero ({@code .56}, {@code -.03}); a rounded zero as {@code 0}. */
  public static String label(double v) {
    if (Math.abs(v) < 0.005) {
      return "0";
    }
    String s = String.format(Locale.ROOT, "%.2f", v);
    return s.startsWith("0.") ? s.substring(1) : s.startsWith("-0.") ? "-" + s.substring(2) : s;
  }

  private void redraw() {
    if (values.length == 0) {
      drawNothing();
      return;
    }
    int layers = values.length;
    int heads = values[0].length;
    GraphicsContext g = startGrid(layers, heads, LEFT, top, cell);
    if (columns != null) {
      // token positions: each column named by its token, read bottom-up over the column
      g.setFill(javafx.scene.paint.Color.WHITE);
      g.fillRect(LEFT, 0, heads * cell + 4, top);
      g.setFill(FxColors.of(UiColor.TEXT_SOFT));
      g.setTextAlign(javafx.scene.text.TextAlignment.LEFT);
      g.setFont(Font.font(Math.min(10, cell * 0.8)));
      for (int c = 0; c < heads; c++) {
        g.save();
        g.translate(LEFT + (c + 0.5) * cell, top - 3);
        g.rotate(-90);
        g.fillText(columns.get(c), 0, 0);
        g.restore();
      }
      g.setTextAlign(javafx.scene.text.TextAlignment.CENTER);
      g.setFont(Font.font(10));
    }
    // the full scale is full colour (a share's 1: all of the clean-corrupted difference); a cell beyond it
    // widens the scale
    double max = fullScale;
    for (double[] row : values) {
      for (double v : row) {
        if (!Double.isNaN(v)) {
          max = Math.max(max, Math.abs(v));
        }
      }
    }
    double scale = max > 0 ? max : 1;
    paintCells(g, values, LEFT, top, cell, 0.34, 24, v -> FxColors.diverging(v, scale), SignedHeadGrid::label);
    outlineOpened(g, opened, layers, heads, LEFT, top, cell);
  }
}
