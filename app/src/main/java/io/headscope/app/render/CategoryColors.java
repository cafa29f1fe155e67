package io.headscope.app.render;

import io.headscope.analysis.heads.HeadPattern;

/**
 * One colour per Kovaleva category, shared by the window's frames and legend and the headless figures.
 * Okabe and Ito's colour-blind-safe set, chosen to be told apart at a 3-pixel frame and from the maps'
 * own blues: the commonest category (vertical) is orange, so a grid of mostly vertical heads no longer
 * reads as one blue field.
 */
public final class CategoryColors {
  private CategoryColors() {}

  /** 0xRRGGBB. */
  public static int rgb(HeadPattern p) {
    return switch (p) {
      case VERTICAL -> 0xE69F00;          // orange
      case DIAGONAL -> 0x009E73;          // bluish green
      case VERTICAL_DIAGONAL -> 0xCC79A7; // reddish purple
      case BLOCK -> 0xD55E00;             // vermillion
      case HETEROGENEOUS -> 0x56B4E9;     // sky blue
    };
  }

  /** The stylesheet's name for it: {@code category-vertical}, {@code category-vertical-diagonal}... */
  public static String cssName(HeadPattern p) {
    return "category-" + p.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
