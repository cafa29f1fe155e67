package io.headscope.analysis.corpus;

/**
 * One input of a corpus.
 *
 * @param line its 1-based line number in the file
 * @param a the sentence (segment a)
 * @param b the second sentence of a pair, or null
 */
public record CorpusInput(int line, String a, String b) {
  public boolean isPair() {
    return b != null;
  }
}
