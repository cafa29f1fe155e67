package io.headscope.app.gui.headmap;

import io.headscope.analysis.distance.HeadMap;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.ScatterFit;
import io.headscope.app.render.UiColor;
import io.headscope.model.core.Head;
import java.util.function.Consumer;
import java.util.function.Function;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.TextAlignment;

/**
 * The head map drawn: one circle per head at its MDS position (one scale for both axes), filled with
 * its category's colour and labelled with its layer; the head under the pointer is named in full
 * ("8-10"), the selected head ringed. Hit-testing picks the nearest circle under the pointer.
 */
public final class HeadMapCanvas extends Canvas {
  static final double RADIUS = 8;
  private HeadMap map;
  private Function<Head, HeadPattern> category = h -> null;
  private Head selected;
  private Head hovered;
  private ScatterFit fit;

  public HeadMapCanvas() {
    setId("head-map");
  }

  /** What a click and the pointer over a head do (null: no head there). */
  void onHead(Consumer<Head> onClick, Consumer<Head> onHover) {
    setOnMouseClicked(e -> {
      Head h = headAt(e.getX(), e.getY());
      if (h != null) {
        onClick.accept(h);
      }
    });
    setOnMouseMoved(e -> {
      Head h = headAt(e.getX(), e.getY());
      if (h == null ? hovered != null : !h.equals(hovered)) {
        hovered = h;
        redraw();
      }
      onHover.accept(h);
    });
    setOnMouseExited(e -> {
      hovered = null;
      redraw();
      onHover.accept(null);
    });
  }

  void show(HeadMap m, Function<Head, HeadPattern> categories, Head selectedHead, double size) {
    map = m;
    category = categories;
    selected = selectedHead;
    setWidth(m == null ? 1 : size);
    setHeight(m == null ? 1 : size);
    fit = null;
    if (m != null) {
      int k = m.distances().count();
      double[] xs = new double[k];
      double[] ys = new double[k];
      for (int i = 0; i < k; i++) {
        xs[i] = m.x(m.distances().head(i));
        ys[i] = m.y(m.distances().head(i));
      }
      fit = ScatterFit.of(xs, ys, 0, 0, size, size, RADIUS + 4);
    }
    redraw();
  }

  void select(Head h) {
    selected = h;
    redraw();
  }

  /** The head whose circle is under a point (the closest centre within the radius), or null. */
  Head headAt(double x, double y) {
    if (map == null) {
      return null;
    }
    Head best = null;
    double bestD = RADIUS + 1;
    for (int i = 0; i < map.distances().count(); i++) {
      Head h = map.distances().head(i);
      double d = Math.hypot(x - fit.px(map.x(h)), y - fit.py(map.y(h)));
      if (d <= bestD) {
        best = h;
        bestD = d;
      }
    }
    return best;
  }

  /** For tests and the view: where a head's circle is drawn, in the canvas's coordinates. */
  double[] centre(Head h) {
    return new double[] {fit.px(map.x(h)), fit.py(map.y(h))};
  }

  private void redraw() {
    GraphicsContext g = getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, getWidth(), getHeight());
    if (map == null) {
      return;
    }
    g.setStroke(FxColors.of(UiColor.RULE));
    g.setLineWidth(1);
    g.strokeRect(0.5, 0.5, getWidth() - 1, getHeight() - 1);
    g.setTextAlign(TextAlignment.CENTER);
    g.setTextBaseline(VPos.CENTER);
    Font label = Font.font(null, FontWeight.BOLD, 9);
    int n = map.distances().count();
    double[] xs = new double[n];
    double[] ys = new double[n];
    for (int i = 0; i < n; i++) {
      double[] c = centre(map.distances().head(i));
      xs[i] = c[0];
      ys[i] = c[1];
    }
    // where dots crowd, only the ones on top keep their layer number (pointing names the others)
    boolean[] numbered = io.headscope.app.render.CrowdedLabels.labelled(xs, ys, LABEL_ROOM);
    for (int i = 0; i < n; i++) {
      dot(g, map.distances().head(i), label, numbered[i]);
    }
    // the selected and the hovered head on top, named in full
    for (Head h : new Head[] {selected, hovered}) {
      if (h != null && map.distances().index(h) < map.distances().count()) {
        double[] c = centre(h);
        g.setStroke(FxColors.of(UiColor.SELECTED));
        g.setLineWidth(h.equals(selected) ? 2.5 : 1.5);
        g.strokeOval(c[0] - RADIUS - 3, c[1] - RADIUS - 3, 2 * RADIUS + 6, 2 * RADIUS + 6);
        g.setFont(Font.font(null, FontWeight.BOLD, 11));
        g.setFill(FxColors.of(UiColor.SELECTED));
        g.fillText(h.toString(), c[0], c[1] - RADIUS - 11);
      }
    }
  }

  /** How far apart two dots' centres must be for both numbers to be read (a two-digit layer is ~11 px wide and 9 high: 14 px apart, two never touch). */
  static final double LABEL_ROOM = 1.75 * RADIUS;

  private void dot(GraphicsContext g, Head h, Font label, boolean numbered) {
    double[] c = centre(h);
    HeadPattern p = category.apply(h);
    Color fill = p == null ? FxColors.of(UiColor.UNKNOWN) : FxColors.category(p);
    g.setFill(fill);
    g.fillOval(c[0] - RADIUS, c[1] - RADIUS, 2 * RADIUS, 2 * RADIUS);
    g.setStroke(Color.gray(0.2));
    g.setLineWidth(0.6);
    g.strokeOval(c[0] - RADIUS, c[1] - RADIUS, 2 * RADIUS, 2 * RADIUS);
    if (numbered) {
      g.setFont(label);
      g.setFill(fill.getBrightness() < 0.6 ? Color.WHITE : Color.BLACK);
      g.fillText(String.valueOf(h.layer() + 1), c[0], c[1]);
    }
  }
}
