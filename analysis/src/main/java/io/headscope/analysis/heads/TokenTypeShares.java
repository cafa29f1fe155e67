package io.headscope.analysis.heads;

/** Shares of attention on Clark's four key-token types; they sum to 1. */
public record TokenTypeShares(double cls, double sep, double punct, double other) {
  public static TokenTypeShares of(double[] a) {
    return new TokenTypeShares(a[0], a[1], a[2], a[3]);
  }

  public double get(TokenType t) {
    return switch (t) {
      case CLS -> cls;
      case SEP -> sep;
      case PUNCT -> punct;
      case OTHER -> other;
    };
  }
}
