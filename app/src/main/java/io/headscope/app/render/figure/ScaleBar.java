package io.headscope.app.render.figure;

import io.headscope.app.render.Palette;
import java.util.Locale;

/**
 * A colour scale with its numbers: 0 … max on the heatmap's white-to-navy scale, or −max … 0 … +max
 * on the diverging red-white-blue one, and what the colour means.
 */
final class ScaleBar {
  static final double WIDTH = 160;
  static final double HEIGHT = 12;
  static final double TOTAL_HEIGHT = HEIGHT + 30;
  private final double max;
  private final boolean diverging;
  private final String meaning;

  ScaleBar(double max, boolean diverging, String meaning) {
    this.max = max;
    this.diverging = diverging;
    this.meaning = meaning;
  }

  double width() {
    return Math.max(WIDTH + 90, Fonts.width(meaning, 10, false) + 10);
  }

  /** The numbers at the ends, as printed: "0" and "0.97", or "−0.27" and "+0.27". */
  String[] ends() {
    return diverging ? new String[] {String.format(Locale.ROOT, "%+.3g", -max), String.format(Locale.ROOT, "%+.3g", max)}
        : new String[] {"0", String.format(Locale.ROOT, "%.3g", max)};
  }

  void draw(Surface s, double x, double y) {
    int steps = 80;
    int[] px = new int[steps];
    for (int i = 0; i < steps; i++) {
      double t = (i + 0.5) / steps;
      px[i] = diverging ? Palette.diverging((2 * t - 1) * max, max) : Palette.argb(t * max, max);
    }
    double x0 = x + 40;
    s.cells(px, steps, 1, x0, y, WIDTH, HEIGHT);
    s.stroke(x0, y, WIDTH, HEIGHT, 0x808080, 0.8);
    String[] e = ends();
    s.text(e[0], x0 - 4, y + HEIGHT - 2, 10, false, 0x000000, Surface.Anchor.END, 0);
    s.text(e[1], x0 + WIDTH + 4, y + HEIGHT - 2, 10, false, 0x000000, Surface.Anchor.START, 0);
    if (diverging) {
      s.line(x0 + WIDTH / 2, y + HEIGHT, x0 + WIDTH / 2, y + HEIGHT + 4, 0x808080, 1, 0.8);
      s.text("0", x0 + WIDTH / 2, y + HEIGHT + 13, 9, false, 0x444444, Surface.Anchor.MIDDLE, 0);
    }
    s.text(meaning, x, y + HEIGHT + 26, 10, false, 0x444444, Surface.Anchor.START, 0);
  }
}
