package io.headscope.app.gui.chart;

import io.headscope.model.core.Head;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import java.util.function.Consumer;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/** A canvas that draws one cell per head: a click opens the head, the pointer reads it out. */
public abstract class HeadGridCanvas extends Canvas {

  /** The head under a point of the canvas, or null outside the grid. */
  public abstract Head headAt(double x, double y);

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
    setWidth(1);
    setHeight(1);
    getGraphicsContext2D().clearRect(0, 0, 1, 1);
  }

  /**
   * Sizes the canvas to layers x heads cells below a row of head numbers, on white, and returns the pen
   * set for centred text.
   */
  protected GraphicsContext startGrid(int layers, int heads, double left, double top, double cell) {
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
    return g;
  }
}
