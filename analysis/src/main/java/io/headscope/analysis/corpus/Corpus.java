package io.headscope.analysis.corpus;

import java.util.ArrayList;
import java.util.List;

/**
 * The usable inputs of a corpus file and the lines that were skipped.
 *
 * @param name where it came from (a path or a resource name), for messages
 * @param inputs the inputs in file order
 * @param problems the skipped lines, in file order
 */
public record Corpus(String name, List<CorpusInput> inputs, List<CorpusProblem> problems) {
  public Corpus {
    inputs = List.copyOf(inputs);
    problems = List.copyOf(problems);
  }

  /** A corpus of one input typed on the command line or in the app. */
  public static Corpus of(String a, String b) {
    return new Corpus("text", List.of(new CorpusInput(1, a, b)), List.of());
  }

  /** The same corpus with more problems (found later, e.g. inputs too long for a model). */
  public Corpus withProblems(List<CorpusInput> kept, List<CorpusProblem> more) {
    List<CorpusProblem> all = new ArrayList<>(problems);
    all.addAll(more);
    all.sort(java.util.Comparator.comparingInt(CorpusProblem::line));
    return new Corpus(name, kept, all);
  }
}
