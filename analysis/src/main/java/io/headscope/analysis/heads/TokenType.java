package io.headscope.analysis.heads;

import java.util.Locale;

/** Clark et al.'s key-token categories for token-type attention (METHODS.md). */
public enum TokenType {
  CLS,
  SEP,
  /** {@code .} and {@code ,} only, as in Clark et al.'s code. */
  PUNCT,
  OTHER;

  /** The CSV name: {@code cls}, {@code sep}, {@code punct}, {@code other}. */
  public String columnName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static TokenType of(String token) {
    return switch (token) {
      case "[CLS]" -> CLS;
      case "[SEP]" -> SEP;
      case ".", "," -> PUNCT;
      default -> OTHER;
    };
  }
}
