package io.headscope.app.gui.linguistics;

import io.headscope.app.gui.chart.HeadGridCanvas;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import io.headscope.model.core.Head;
import java.util.Locale;
import javafx.scene.canvas.GraphicsContext;

/**
 * Layers x heads, each cell coloured by the head's accuracy (white 0 to navy at the grid's best), the
 * percentage written in it when there is room, the best head framed, the opened head outlined.
 */
public final class AccuracyGrid extends HeadGridCanvas {
  private double[][] values = new double[0][0];
  private double cell = 28;
  private Head opened;

  public AccuracyGrid() {
    setId("ling-grid");
  }

  void show(double[][] v, Head open, double maxWidth) {
    values = v;
    opened = open;
    if (v.length > 0) {
      cell = Math.max(12, Math.min(34, (maxWidth - LEFT - 8) / v[0].length));
    }
    redraw();
  }



  private void redraw() {
    if (values.length == 0) {
      drawNothing();
      return;
    }
    int layers = values.length;
    int heads = values[0].length;
    GraphicsContext g = startGrid(layers, heads, LEFT, TOP, cell);
    double max = 0;
    int bl = 0;
    int bh = 0;
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        if (values[l][h] > max) {
          max = values[l][h];
          bl = l;
          bh = h;
        }
      }
    }
    double scale = max > 0 ? max : 1;
    paintCells(g, values, LEFT, TOP, cell, 0.36, 22, v -> FxColors.scale(v, scale),
        v -> String.format(Locale.ROOT, "%.0f", 100 * v));
    g.setLineWidth(2);
    g.setStroke(FxColors.of(UiColor.PICKED));
    g.strokeRect(LEFT + bh * cell, TOP + bl * cell, cell - 1, cell - 1);
    outlineOpened(g, opened, layers, heads, LEFT, TOP, cell);
  }
}
