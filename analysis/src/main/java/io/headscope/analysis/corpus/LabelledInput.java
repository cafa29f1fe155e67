package io.headscope.analysis.corpus;

/**
 * One input of a labelled corpus: the corpus input and its gold label.
 *
 * @param input the text (a sentence or a pair) with its line number
 * @param label the gold label as an index into {@link LabelledCorpus#labels()}
 */
public record LabelledInput(CorpusInput input, int label) {
  public int line() {
    return input.line();
  }
}
