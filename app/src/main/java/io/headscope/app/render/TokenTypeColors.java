package io.headscope.app.render;

import io.headscope.analysis.heads.TokenType;

/** One colour per Clark token type, shared by every token-type chart; none is a category colour. */
public final class TokenTypeColors {
  private TokenTypeColors() {}

  /** 0xRRGGBB. */
  public static int rgb(TokenType t) {
    return switch (t) {
      case CLS -> 0x8C564B;   // brown
      case SEP -> 0xE377C2;   // pink
      case PUNCT -> 0x7F7F7F; // grey
      case OTHER -> 0xDBDB8D; // pale olive
    };
  }

  /** The stylesheet's name for it: {@code token-type-cls}... */
  public static String cssName(TokenType t) {
    return "token-type-" + t.name().toLowerCase(java.util.Locale.ROOT);
  }

  /** How a token type is named on screen. */
  public static String label(TokenType t) {
    return switch (t) {
      case CLS -> "[CLS]";
      case SEP -> "[SEP]";
      case PUNCT -> ". ,";
      case OTHER -> "other";
    };
  }
}
