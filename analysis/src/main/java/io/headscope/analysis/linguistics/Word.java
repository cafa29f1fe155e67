package io.headscope.analysis.linguistics;

/**
 * One syntactic word of a CoNLL-U sentence (multiword-token ranges and empty nodes are not words).
 *
 * @param id the 1-based word id
 * @param form the word as written
 * @param upos the universal part of speech
 * @param head the id of its syntactic head, 0 for the root
 * @param deprel the relation to its head as written ({@code nmod:poss})
 */
public record Word(int id, String form, String upos, int head, String deprel) {

  /** The universal part of a relation: {@code nmod:poss} to {@code nmod}. */
  public String universalRelation() {
    int colon = deprel.indexOf(':');
    return colon < 0 ? deprel : deprel.substring(0, colon);
  }
}
