package io.headscope.app.gui.head;

import io.headscope.analysis.neuron.NeuronView;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import java.util.Locale;
import java.util.function.IntConsumer;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * BertViz's neuron view, drawn: the tokens down the left (the query highlighted; a click makes a token the
 * query), the query vector q over the key column, and per key its vector k, the product q × k per dimension
 * (blue positive, red negative, each on its own scale), the score q · k / √dh, and the softmax as a bar with
 * the engine's own map value beside it.
 */
public final class NeuronPane extends Canvas {
  static final double LABEL = 96;
  static final double TOP = 40;
  private NeuronView view;
  private double row = 14;
  private double cw = 2.5;

  public NeuronPane() {
    setId("head-neuron");
  }

  /** Which token a click at {@code y} picks (a click in the token column), or -1. */
  int tokenAt(double x, double y) {
    if (view == null || x > LABEL || y < TOP) {
      return -1;
    }
    int j = (int) ((y - TOP) / row);
    return j < view.tokens().size() ? j : -1;
  }

  void onQuery(IntConsumer choose) {
    setOnMouseClicked(e -> {
      int j = tokenAt(e.getX(), e.getY());
      if (j >= 0) {
        choose.accept(j);
      }
    });
  }

  NeuronView shown() {
    return view;
  }

  void show(NeuronView v, double maxWidth) {
    view = v;
    if (v == null) {
      setWidth(1);
      setHeight(1);
      getGraphicsContext2D().clearRect(0, 0, 1, 1);
      return;
    }
    int n = v.tokens().size();
    int dh = v.q().length;
    row = Math.max(5, Math.min(14, 7900.0 / n));
    // two vectors of dh cells each, the score, the bar and its numbers
    cw = Math.max(1, Math.min(4, (maxWidth - LABEL - 16 - 40 - 150) / (2.0 * dh)));
    double vec = cw * dh;
    // a column is never narrower than its header: with small heads (d_h 4 to 16) the vectors are a few cells
    // wide and "k (each key)" ran into "q × k"
    double kCol = Math.max(vec, 66);
    double pCol = Math.max(vec, 36);
    setWidth(LABEL + kCol + 8 + pCol + 8 + 44 + 150);
    setHeight(TOP + n * row + 4);
    GraphicsContext g = getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, getWidth(), getHeight());
    g.setTextBaseline(VPos.CENTER);
    g.setFont(Font.font(10));
    double kx = LABEL;
    double px = kx + kCol + 8;
    double sx = px + pCol + 8;
    double bx = sx + 44;
    g.setFill(FxColors.of(UiColor.TEXT_SOFT));
    g.setTextAlign(TextAlignment.LEFT);
    g.fillText("k (each key)", kx, 8);
    g.fillText("q × k", px, 8);
    g.fillText("q·k/√" + dh, sx, 8);
    g.fillText("softmax | model", bx, 8);
    // q over the key column, on the scale of q and k
    double vmax = v.maxAbs();
    g.fillText("q", kx - 12, TOP - 12);
    for (int d = 0; d < dh; d++) {
      g.setFill(FxColors.diverging(v.q()[d], vmax));
      g.fillRect(kx + d * cw, TOP - 18, Math.max(1, cw - (cw > 2 ? 0.5 : 0)), 12);
    }
    double pmax = 0;
    for (int j = 0; j < n; j++) {
      for (double p : v.product(j)) {
        pmax = Math.max(pmax, Math.abs(p));
      }
    }
    for (int j = 0; j < n; j++) {
      double y = TOP + j * row;
      boolean isQuery = j == v.query();
      if (isQuery) {
        g.setFill(FxColors.of(UiColor.HIGHLIGHT));
        g.fillRect(0, y, getWidth(), row);
      }
      g.setFont(Font.font(null, isQuery ? javafx.scene.text.FontWeight.BOLD : javafx.scene.text.FontWeight.NORMAL,
          Math.min(11, row - 2)));
      g.setTextAlign(TextAlignment.RIGHT);
      g.setFill(Color.BLACK);
      if (row >= 7) {
        g.fillText(v.tokens().get(j), LABEL - 6, y + row / 2, LABEL - 10);
      }
      boolean hidden = Double.isNaN(v.scores()[j]);
      double[] prod = v.product(j);
      for (int d = 0; d < dh; d++) {
        g.setFill(FxColors.diverging(v.k()[j][d], vmax));
        g.fillRect(kx + d * cw, y + 1, Math.max(1, cw - (cw > 2 ? 0.5 : 0)), row - 2);
        g.setFill(hidden ? Color.gray(0.92) : FxColors.diverging(prod[d], pmax));
        g.fillRect(px + d * cw, y + 1, Math.max(1, cw - (cw > 2 ? 0.5 : 0)), row - 2);
      }
      g.setFont(Font.font(Math.min(10, row - 2)));
      g.setTextAlign(TextAlignment.RIGHT);
      g.setFill(FxColors.of(UiColor.TEXT_SOFT));
      if (row >= 7) {
        g.fillText(hidden ? "—" : String.format(Locale.ROOT, "%.2f", v.scores()[j]), sx + 38, y + row / 2);
      }
      double a = v.softmax()[j];
      g.setFill(FxColors.of(UiColor.LINE));
      g.fillRect(bx, y + 2, 70 * a, Math.max(1, row - 4));
      g.setTextAlign(TextAlignment.LEFT);
      g.setFill(Color.BLACK);
      if (row >= 7) {
        g.fillText(String.format(Locale.ROOT, "%.3f | %.3f", a, v.attention()[j]), bx + 74, y + row / 2);
      }
    }
  }
}
