package io.headscope.analysis.linguistics;

import java.util.List;

/**
 * The usable sentences of a CoNLL-U file and what was skipped.
 *
 * @param name the file, for messages
 * @param sentences the sentences in file order
 * @param skipped one line per sentence that could not be used ({@code file:line: problem})
 */
public record Treebank(String name, List<Sentence> sentences, List<String> skipped) {
  public Treebank {
    sentences = List.copyOf(sentences);
    skipped = List.copyOf(skipped);
  }
}
