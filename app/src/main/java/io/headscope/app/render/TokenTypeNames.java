package io.headscope.app.render;

import io.headscope.analysis.heads.TokenType;
import java.util.List;

/**
 * How the token types are named for one model: its own special tokens ({@code [CLS]} and {@code [SEP]} for
 * BERT, {@code <s>} and {@code </s>} for RoBERTa), so a panel, a legend, the ranking and an export never
 * name a token the model does not have (issue 40).
 *
 * @param cls the model's token of type {@link TokenType#CLS}
 * @param sep the model's token of type {@link TokenType#SEP}
 * @param marked whether the model's template puts such tokens around an input at all (GPT-2's and Llama's put
 *     none: a share of attention "to [CLS]" would be 0 for every head there, nothing to rank by)
 */
public record TokenTypeNames(String cls, String sep, boolean marked) {
  /** BERT's, the names when a model has no special tokens to go by. */
  public static final TokenTypeNames BERT = new TokenTypeNames("[CLS]", "[SEP]", true);

  /**
   * The names from a tokenized input: the first token of each special type in it (a template puts them at
   * the ends), BERT's for a type the input lacks.
   */
  public static TokenTypeNames of(List<String> tokens) {
    String cls = BERT.cls();
    String sep = BERT.sep();
    boolean clsSeen = false;
    boolean sepSeen = false;
    for (String t : tokens) {
      TokenType type = TokenType.of(t);
      if (type == TokenType.CLS && !clsSeen) {
        cls = t;
        clsSeen = true;
      } else if (type == TokenType.SEP && !sepSeen) {
        sep = t;
        sepSeen = true;
      }
    }
    return new TokenTypeNames(cls, sep, clsSeen || sepSeen);
  }

  /** The model's names, from its template around one word; BERT's when it cannot say (no model, no template). */
  public static TokenTypeNames of(io.headscope.model.BertModel model) {
    if (model == null) {
      return BERT;
    }
    try {
      return of(model.encode("a", null).tokens());
    } catch (RuntimeException e) {
      return BERT; // a tokenizer that refuses the probe still has the types the classifier knows
    }
  }

  /** How a token type is named on screen and in figures. */
  public String label(TokenType t) {
    return switch (t) {
      case CLS -> cls;
      case SEP -> sep;
      default -> TokenTypeColors.label(t);
    };
  }
}
