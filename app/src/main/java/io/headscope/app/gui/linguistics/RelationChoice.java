package io.headscope.app.gui.linguistics;

import java.util.Locale;

/**
 * One entry of the Linguistics screen's list: a dependency relation (or {@code all}) with its word
 * count, or coreference with its evaluated mentions.
 */
public record RelationChoice(String relation, long count, boolean coreference) {
  public static final String COREFERENCE = "coreference";

  static RelationChoice coref(long mentions) {
    return new RelationChoice(COREFERENCE, mentions, true);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s  (%d %s)", relation, count, coreference ? "mentions" : "words");
  }
}
