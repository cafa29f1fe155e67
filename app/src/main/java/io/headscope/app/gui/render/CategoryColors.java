package io.headscope.app.gui.render;

import io.headscope.analysis.heads.HeadPattern;

/**
 * One colour per Kovaleva category, shared by the window's frames and legend and the headless PNGs.
 * Chosen to be told apart at a 3-pixel frame (Tableau 10 hues).
 */
public final class CategoryColors {
  private CategoryColors() {}

  public static int rgb(HeadPattern p) {
    return switch (p) {
      case VERTICAL -> 0x1F77B4;          // blue
      case DIAGONAL -> 0x2CA02C;          // green
      case VERTICAL_DIAGONAL -> 0x17BECF; // teal
      case BLOCK -> 0x9467BD;             // purple
      case HETEROGENEOUS -> 0xFF7F0E;     // orange
    };
  }

  public static javafx.scene.paint.Color fx(HeadPattern p) {
    int c = rgb(p);
    return javafx.scene.paint.Color.rgb((c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF);
  }

  public static java.awt.Color awt(HeadPattern p) {
    return new java.awt.Color(rgb(p));
  }
}
