package io.headscope.analysis.heads;

/**
 * Kovaleva et al.'s five classes of self-attention map (METHODS.md, "Kovaleva pattern categories").
 * The order is the order of the paper's stacked bar and of the CSV's {@code share_*} columns.
 */
public enum HeadPattern {
  /** Nearly all rows attend to the same one or two columns ([CLS], [SEP], punctuation). */
  VERTICAL("vertical"),
  /** Rows attend to themselves or to a token at a fixed offset (previous, next). */
  DIAGONAL("diagonal"),
  /** Both at once. */
  VERTICAL_DIAGONAL("vertical+diagonal"),
  /** In a pair, tokens attend within their own segment, with no single dominant column. */
  BLOCK("block"),
  /** Anything else. */
  HETEROGENEOUS("heterogeneous");

  /**
   * What the grid and the CSV say instead of a category when the learned model's top probability is
   * under {@link LearnedRule#UNCERTAIN_BELOW}: a colour never claims more than the classifier knows.
   */
  public static final String UNCERTAIN_LABEL = "uncertain";

  private final String label;

  /** What a head is shown as: its category's label, or {@link #UNCERTAIN_LABEL}. */
  public static String shownLabel(HeadPattern category, boolean uncertain) {
    return uncertain ? UNCERTAIN_LABEL : category.label();
  }

  HeadPattern(String label) {
    this.label = label;
  }

  /** The paper's name, as written in the CSV and shown in the app: {@code vertical+diagonal}. */
  public String label() {
    return label;
  }

  /** The CSV column suffix: {@code vertical_diagonal}. */
  public String columnName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Parses a label ({@code vertical+diagonal}) or an enum name, case-insensitively. */
  public static HeadPattern parse(String s) {
    String t = s == null ? "" : s.trim().toLowerCase(java.util.Locale.ROOT);
    for (HeadPattern p : values()) {
      if (p.label.equals(t) || p.columnName().equals(t)) {
        return p;
      }
    }
    throw new io.headscope.model.core.HeadScopeException(
        "\"" + s + "\" is not a pattern: use vertical, diagonal, vertical+diagonal, block or heterogeneous.");
  }
}
