package io.headscope.analysis.linguistics;

import java.util.List;

/**
 * A sentence of a treebank.
 *
 * @param document the {@code # newdoc id} it belongs to (the file name when there is none)
 * @param id its {@code # sent_id}, or its position in the file
 * @param line the line of the file where it starts
 * @param words its syntactic words, ids 1..n in order
 * @param mentions its coreference mentions, in order of start (then end)
 */
public record Sentence(String document, String id, int line, List<Word> words, List<Mention> mentions) {
  public Sentence {
    words = List.copyOf(words);
    mentions = List.copyOf(mentions);
  }

  public int size() {
    return words.size();
  }

  /** The word with a 1-based id. */
  public Word word(int id) {
    return words.get(id - 1);
  }
}
