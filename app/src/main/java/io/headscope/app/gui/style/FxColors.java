package io.headscope.app.gui.style;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.TokenType;
import io.headscope.app.render.CategoryColors;
import io.headscope.app.render.Palette;
import io.headscope.app.render.TokenTypeColors;
import io.headscope.app.render.UiColor;
import javafx.scene.paint.Color;

/**
 * The palette ({@link io.headscope.app.render}) as JavaFX colours, for what the window draws itself
 * (canvases, shapes); controls take their colours from the stylesheet's looked-up colours instead.
 */
public final class FxColors {
  private FxColors() {}

  public static Color of(UiColor c) {
    return rgb(c.rgb(), 1);
  }

  public static Color of(UiColor c, double opacity) {
    return rgb(c.rgb(), opacity);
  }

  public static Color category(HeadPattern p) {
    return rgb(CategoryColors.rgb(p), 1);
  }

  public static Color tokenType(TokenType t) {
    return rgb(TokenTypeColors.rgb(t), 1);
  }

  /** A colour of the heatmap scale ({@link Palette#argb}). */
  public static Color scale(double v, double max) {
    return rgb(Palette.argb(v, max), 1);
  }

  /** A colour of the diverging scale of signed effects ({@link Palette#diverging}). */
  public static Color diverging(double v, double maxAbs) {
    return rgb(Palette.diverging(v, maxAbs), 1);
  }

  /** 0x(AA)RRGGBB, alpha ignored. */
  public static Color rgb(int rgb, double opacity) {
    return Color.rgb((rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF, opacity);
  }
}
