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

  /**
   * The type of a token as its family spells it: BERT's {@code [CLS]} and {@code [SEP]} are RoBERTa's and
   * XLM-R's {@code <s>} and {@code </s>}; a full stop or comma may carry the space mark of byte-level BPE
   * ({@code Ġ}) or SentencePiece ({@code ▁}).
   */
  public static TokenType of(String token) {
    return switch (token) {
      case "[CLS]", "<s>" -> CLS;
      case "[SEP]", "</s>" -> SEP;
      case ".", ",", "\u0120.", "\u0120,", "\u2581.", "\u2581," -> PUNCT;
      default -> OTHER;
    };
  }
}
