package io.headscope.app.render.figure;

import java.awt.Font;
import java.awt.font.FontRenderContext;

/**
 * The one typeface of every figure (Java2D's SansSerif, DejaVu Sans on this machine) and its metrics,
 * so a PNG and an SVG of the same figure lay out the same (the SVG names the same family first).
 */
final class Fonts {
  static final String SVG_FAMILY = "DejaVu Sans, Helvetica, Arial, sans-serif";
  private static final FontRenderContext CONTEXT = new FontRenderContext(null, true, true);

  private Fonts() {}

  static Font font(double size, boolean bold) {
    return new Font(Font.SANS_SERIF, bold ? Font.BOLD : Font.PLAIN, 1).deriveFont((float) size);
  }

  static double width(String s, double size, boolean bold) {
    return s.isEmpty() ? 0 : font(size, bold).getStringBounds(s, CONTEXT).getWidth();
  }
}
