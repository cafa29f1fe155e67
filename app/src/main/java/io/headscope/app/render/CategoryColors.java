package io.headscope.app.render;

import io.headscope.analysis.heads.HeadPattern;

/**
 * One colour per Kovaleva category, shared by the window's frames and legend and the headless PNGs.
 * Chosen to be told apart at a 3-pixel frame (Tableau 10 hues).
 */
public final class CategoryColors {
  private CategoryColors() {}

  /** 0xRRGGBB. */
  public static int rgb(HeadPattern p) {
    return switch (p) {
      case VERTICAL -> 0x1F77B4;          // blue
      case DIAGONAL -> 0x2CA02C;          // green
      case VERTICAL_DIAGONAL -> 0x17BECF; // teal
      case BLOCK -> 0x9467BD;             // purple
      case HETEROGENEOUS -> 0xFF7F0E;     // orange
    };
  }

  /** The stylesheet's name for it: {@code category-vertical}, {@code category-vertical-diagonal}... */
  public static String cssName(HeadPattern p) {
    return "category-" + p.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
