package io.headscope.app.gui.render;

import io.headscope.analysis.heads.TokenType;
import javafx.scene.paint.Color;

/** One colour per Clark token type, shared by every token-type chart; none is a category colour. */
public final class TokenTypeColors {
  private TokenTypeColors() {}

  public static Color fx(TokenType t) {
    return switch (t) {
      case CLS -> Color.web("#8c564b");   // brown
      case SEP -> Color.web("#e377c2");   // pink
      case PUNCT -> Color.web("#7f7f7f"); // grey
      case OTHER -> Color.web("#dbdb8d"); // pale olive
    };
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
