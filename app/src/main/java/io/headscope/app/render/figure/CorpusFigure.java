package io.headscope.app.render.figure;

import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadSummary;
import io.headscope.app.render.CategoryColors;
import java.util.List;
import java.util.Locale;

/**
 * A corpus run for a paper: each head in the colour of its most frequent category over the corpus
 * (paler the smaller that category's share, the share written in the cell), and under it Kovaleva's
 * bar: the share of all maps in each category.
 */
public final class CorpusFigure {
  private static final double CELL = 34;
  private static final double LEFT = 34;

  private CorpusFigure() {}

  public static Figure of(CorpusResult r, String corpusName) {
    int layers = r.layers();
    int heads = r.heads();
    long maps = (long) r.analysed() * r.perHead().size();
    Header header = Header.of(r.model() + " · Kovaleva categories over a corpus", List.of(
        "each head: its most frequent category over the inputs (colour), and that category's share of them (number)",
        String.format(Locale.ROOT, "corpus: %s · %d inputs analysed, %d lines skipped · %d maps", corpusName,
            r.analysed(), r.skipped(), maps)), null, LEFT + heads * CELL + 2 * Header.MARGIN);
    double top = header.height() + 16;
    double barY = top + layers * CELL + 20;
    double width = Math.max(Math.max(LEFT + heads * CELL + 2 * Header.MARGIN, 520), header.width());
    double barW = width - 2 * Header.MARGIN;
    double height = barY + 18 + 20 + 16 + Header.MARGIN;
    return new Figure(r.model() + ": Kovaleva categories over " + corpusName,
        "most frequent category per head and the model-wide shares", width, height, s -> {
          header.draw(s);
          double x0 = Header.MARGIN + LEFT;
          for (int h = 0; h < heads; h++) {
            s.text("h" + (h + 1), x0 + h * CELL + CELL / 2, top - 4, 10, false, 0x555555, Surface.Anchor.MIDDLE, 0);
          }
          for (int l = 0; l < layers; l++) {
            s.text("L" + (l + 1), Header.MARGIN, top + l * CELL + CELL / 2 + 4, 10, false, 0x555555, Surface.Anchor.START, 0);
          }
          for (HeadSummary hs : r.perHead()) {
            HeadPattern p = hs.majority();
            double share = hs.shares().getOrDefault(p, 0.0);
            double x = x0 + hs.head().head() * CELL;
            double y = top + hs.head().layer() * CELL;
            s.fill(x + 1, y + 1, CELL - 2, CELL - 2, paler(CategoryColors.rgb(p), share));
            s.text(String.format(Locale.ROOT, "%.0f", 100 * share), x + CELL / 2, y + CELL / 2 + 4, 10, false,
                share > 0.6 ? 0xFFFFFF : 0x000000, Surface.Anchor.MIDDLE, 0);
          }
          // the model-wide shares, one bar
          double x = Header.MARGIN;
          for (HeadPattern p : HeadPattern.values()) {
            double w = barW * r.modelShares().getOrDefault(p, 0.0);
            s.fill(x, barY, w, 18, CategoryColors.rgb(p));
            x += w;
          }
          s.stroke(Header.MARGIN, barY, barW, 18, 0x999999, 0.8);
          double lx = Header.MARGIN;
          for (HeadPattern p : HeadPattern.values()) {
            String label = String.format(Locale.ROOT, "%s %.1f%%", p.label(), 100 * r.modelShares().getOrDefault(p, 0.0));
            s.fill(lx, barY + 26, 10, 10, CategoryColors.rgb(p));
            s.text(label, lx + 13, barY + 35, 10, false, 0x000000, Surface.Anchor.START, 0);
            lx += 13 + s.textWidth(label, 10, false) + 12;
          }
        }).headedBy(header);
  }

  /** The category's colour mixed with white: full at share 1, a fifth at share 0. */
  static int paler(int rgb, double share) {
    double f = 0.2 + 0.8 * Math.max(0, Math.min(1, share));
    int r = (int) Math.round(255 - (255 - ((rgb >> 16) & 0xFF)) * f);
    int g = (int) Math.round(255 - (255 - ((rgb >> 8) & 0xFF)) * f);
    int b = (int) Math.round(255 - (255 - (rgb & 0xFF)) * f);
    return (r << 16) | (g << 8) | b;
  }
}
