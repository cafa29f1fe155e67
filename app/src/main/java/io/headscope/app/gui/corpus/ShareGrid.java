package io.headscope.app.gui.corpus;

import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.heads.HeadSummary;
import io.headscope.app.gui.chart.HeadGridCanvas;
import io.headscope.app.gui.style.FxColors;
import java.util.Locale;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;

/**
 * Layers x heads, each cell in the colour of the head's most frequent category over the corpus,
 * paler the smaller that category's share, with the share written in it when there is room.
 */
public final class ShareGrid extends HeadGridCanvas {
  private CorpusResult result;
  private double cell = 28;

  public ShareGrid() {
    setId("corpus-grid");
  }

  void show(CorpusResult r, double maxWidth, double maxHeight) {
    result = r;
    if (r != null) {
      cell = Math.max(12, Math.min(36, Math.min((maxWidth - LEFT - 8) / r.heads(), (maxHeight - TOP - 8) / r.layers())));
    }
    redraw();
  }


  private void redraw() {
    if (result == null) {
      drawNothing();
      return;
    }
    GraphicsContext g = startGrid(result.layers(), result.heads(), LEFT, TOP, cell);
    g.setFont(Font.font(Math.min(10, cell * 0.36)));
    for (HeadSummary s : result.perHead()) {
      double share = s.share(s.majority());
      // pale at chance (a fifth), full colour when every input agrees
      Color c = Color.WHITE.interpolate(FxColors.category(s.majority()), 0.25 + 0.75 * share);
      double x = LEFT + s.head().head() * cell;
      double y = TOP + s.head().layer() * cell;
      g.setFill(c);
      g.fillRect(x, y, cell - 1, cell - 1);
      if (cell >= 22) {
        g.setFill(c.getBrightness() < 0.75 && share > 0.6 ? Color.WHITE : Color.BLACK);
        g.fillText(String.format(Locale.ROOT, "%.0f", 100 * share), x + cell / 2, y + cell / 2);
      }
    }
  }
}
