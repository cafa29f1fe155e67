package io.headscope.app.gui.corpus;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import java.util.Locale;
import java.util.Map;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/** The model-wide share of all maps (inputs x heads) in each category: Kovaleva's bar, one row each. */
public final class CategoryShareChart extends Canvas {
  private static final double ROW = 18;
  private static final double LABEL = 120;

  public CategoryShareChart() {
    super(420, 5 * ROW + 6);
    setId("corpus-shares");
  }

  void show(Map<HeadPattern, Double> shares) {
    GraphicsContext g = getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, getWidth(), getHeight());
    if (shares == null) {
      return;
    }
    double barMax = getWidth() - LABEL - 60;
    g.setFont(Font.font(11));
    g.setTextBaseline(VPos.CENTER);
    for (HeadPattern p : HeadPattern.values()) {
      double share = shares.getOrDefault(p, 0.0);
      double y = 3 + p.ordinal() * ROW;
      g.setFill(Color.BLACK);
      g.setTextAlign(TextAlignment.RIGHT);
      g.fillText(p.label(), LABEL - 6, y + ROW / 2);
      g.setFill(FxColors.of(UiColor.TRACK));
      g.fillRect(LABEL, y + 3, barMax, ROW - 6);
      g.setFill(FxColors.category(p));
      g.fillRect(LABEL, y + 3, share * barMax, ROW - 6);
      g.setFill(Color.BLACK);
      g.setTextAlign(TextAlignment.LEFT);
      g.fillText(String.format(Locale.ROOT, "%.1f%%", 100 * share), LABEL + barMax + 6, y + ROW / 2);
    }
  }
}
