package io.headscope.app.gui.chart;

import io.headscope.model.Head;
import java.util.function.Consumer;
import javafx.scene.canvas.Canvas;

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
}
