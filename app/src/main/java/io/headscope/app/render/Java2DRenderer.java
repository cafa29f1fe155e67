package io.headscope.app.render;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.model.AttentionTrace;
import io.headscope.model.Head;
import io.headscope.model.HeadMask;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.util.Locale;
import java.util.function.Function;

/**
 * The headless twin of the window's grid and head view, for {@code headscope render}: the same
 * pixels ({@link Palette}), drawn with Java2D into a {@link BufferedImage}. Java2D needs no display
 * (JavaFX's offscreen Monocle does not run on Java 17), so PNGs can be made on a server.
 */
public final class Java2DRenderer {
  private static final Color OFF = AwtColors.of(UiColor.OFF);

  private Java2DRenderer() {}

  /**
   * The layers x heads grid, each map scaled without smoothing; switched-off heads greyed and crossed;
   * {@code category} gives each head's Kovaleva category, drawn as its frame colour with a legend
   * underneath (as in the window), or is null for grey frames and no legend.
   */
  public static BufferedImage grid(AttentionTrace t, HeadMask mask, int thumb, Function<Head, HeadPattern> category) {
    int layers = t.layers();
    int heads = t.heads();
    int cell = thumb + 14;
    int left = 34;
    int top = 20;
    int legend = category == null ? 0 : LEGEND_HEIGHT;
    BufferedImage img = new BufferedImage(Math.max(left + heads * cell + 6, category == null ? 0 : LEGEND_WIDTH),
        top + layers * (cell + 12) + 6 + legend, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = start(img);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    for (int h = 0; h < heads; h++) {
      g.setColor(Color.DARK_GRAY);
      g.drawString("h" + (h + 1), left + h * cell + thumb / 2 - 6, 14);
    }
    for (int l = 0; l < layers; l++) {
      int y = top + l * (cell + 12);
      g.setColor(Color.DARK_GRAY);
      g.drawString("L" + (l + 1), 4, y + cell / 2 + 4);
      for (int h = 0; h < heads; h++) {
        Head head = new Head(l, h);
        int x = left + h * cell;
        HeadPattern p = category == null ? null : category.apply(head);
        g.setColor(p == null ? AwtColors.of(UiColor.UNKNOWN) : AwtColors.category(p));
        g.fillRect(x, y, thumb + 6, thumb + 6);
        float[][] m = t.map(head);
        int[] px = Palette.pixels(m, Palette.max(m));
        boolean off = mask.isOff(head);
        drawPixels(g, off ? Palette.dimmed(px) : px, m.length, m.length, x + 3, y + 3, thumb, thumb);
        if (off) {
          g.setColor(OFF);
          g.setStroke(new BasicStroke(2));
          g.drawLine(x + 3, y + 3, x + 3 + thumb, y + 3 + thumb);
          g.drawLine(x + 3 + thumb, y + 3, x + 3, y + 3 + thumb);
        }
        g.setColor(off ? OFF : Color.BLACK);
        g.drawString(head + (off ? " off" : ""), x + 2, y + thumb + 18);
      }
    }
    if (category != null) {
      drawLegend(g, t, category, img.getHeight() - legend + 4);
    }
    g.dispose();
    return img;
  }

  private static final int LEGEND_HEIGHT = 26;
  private static final int LEGEND_WIDTH = 640;

  /** The five categories in their colours, each with its number of heads, on one line. */
  private static void drawLegend(Graphics2D g, AttentionTrace t, Function<Head, HeadPattern> category, int y) {
    int[] counts = new int[HeadPattern.values().length];
    for (Head h : Head.all(t.layers(), t.heads())) {
      counts[category.apply(h).ordinal()]++;
    }
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    int x = 8;
    for (HeadPattern p : HeadPattern.values()) {
      g.setColor(AwtColors.category(p));
      g.fillRect(x, y + 2, 14, 14);
      g.setColor(Color.BLACK);
      String s = p.label() + " " + counts[p.ordinal()];
      g.drawString(s, x + 19, y + 14);
      x += 19 + g.getFontMetrics().stringWidth(s) + 16;
    }
  }

  /** The head view: the map with query tokens down the left, key tokens along the top, and a colour scale. */
  public static BufferedImage head(HeadMatrix m, int cellSize) {
    int label = 100;
    int w = label + m.cols() * cellSize + 10;
    int h = label + m.rows() * cellSize + 50;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = start(img);
    drawPixels(g, Palette.pixels(m.values(), m.max()), m.rows(), m.cols(), label, label,
        m.cols() * cellSize, m.rows() * cellSize);
    g.setColor(Color.GRAY);
    g.drawRect(label, label, m.cols() * cellSize, m.rows() * cellSize);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
    g.drawString("Head " + m.head() + " · " + m.display() + (m.filter() == HeadMatrix.PairFilter.ALL ? "" : " · " + m.filter()), 4, 14);
    int fs = Math.max(7, Math.min(12, cellSize - 2));
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, fs));
    if (cellSize >= 6) {
      for (int i = 0; i < m.rows(); i++) {
        String s = m.rowTokens().get(i);
        g.drawString(s, label - 4 - g.getFontMetrics().stringWidth(s), label + i * cellSize + cellSize / 2 + fs / 2 - 1);
      }
      for (int j = 0; j < m.cols(); j++) {
        AffineTransform saved = g.getTransform();
        g.translate(label + j * cellSize + cellSize / 2 + fs / 2 - 1, label - 4);
        g.rotate(-Math.PI / 2);
        g.drawString(m.colTokens().get(j), 0, 0);
        g.setTransform(saved);
      }
    }
    int sy = label + m.rows() * cellSize + 16;
    for (int x = 0; x < 150; x++) {
      g.setColor(AwtColors.scale(x / 149.0 * m.max(), m.max()));
      g.fillRect(label + x, sy, 1, 14);
    }
    g.setColor(Color.BLACK);
    g.drawRect(label, sy, 150, 14);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.drawString("0", label - 12, sy + 12);
    g.drawString(String.format(Locale.ROOT, "%.2f", m.max()), label + 156, sy + 12);
    g.dispose();
    return img;
  }

  private static Graphics2D start(BufferedImage img) {
    Graphics2D g = img.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, img.getWidth(), img.getHeight());
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_NEAREST_NEIGHBOR);
    return g;
  }

  /** One pixel per cell, scaled up without smoothing (as the window's ImageView with smooth=false). */
  private static void drawPixels(Graphics2D g, int[] px, int rows, int cols, int x, int y, int w, int h) {
    BufferedImage cells = new BufferedImage(cols, rows, BufferedImage.TYPE_INT_ARGB);
    cells.setRGB(0, 0, cols, rows, px, 0, cols);
    g.drawImage(cells, x, y, w, h, null);
  }
}
