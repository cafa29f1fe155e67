package io.headscope.app.render;

import io.headscope.analysis.heads.HeadPattern;
import java.awt.Color;

/** The palette's colours as Java2D colours, for the headless renderer. */
public final class AwtColors {
  private AwtColors() {}

  public static Color of(UiColor c) {
    return new Color(c.rgb());
  }

  public static Color category(HeadPattern p) {
    return new Color(CategoryColors.rgb(p));
  }

  /** A colour of the heatmap scale ({@link Palette#argb}). */
  public static Color scale(double v, double max) {
    return new Color(Palette.argb(v, max));
  }
}
