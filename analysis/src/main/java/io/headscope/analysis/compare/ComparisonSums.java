package io.headscope.analysis.compare;

import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusProblem;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A comparison before its means are taken: what a shard writes, and what shards add up to (exactly)
 * before {@link ModelComparison#summarise} turns them into the result one run gives.
 *
 * @param sums per head, layer by layer
 * @param skipped lines skipped (the first {@link CorpusLines#KEPT_PROBLEMS} are in problems)
 */
public record ComparisonSums(String modelA, String modelB, String source, int layers, int heads,
    List<HeadPairSums> sums, int analysed, int skipped, List<CorpusProblem> problems) {
  public ComparisonSums {
    sums = List.copyOf(sums);
    problems = List.copyOf(problems);
  }

  /** These sums and another shard's of the same models and corpus. */
  public ComparisonSums plus(ComparisonSums other) {
    if (other.layers != layers || other.heads != heads) {
      throw new IllegalArgumentException("sums of models of different sizes");
    }
    for (int i = 0; i < sums.size(); i++) {
      sums.get(i).add(other.sums.get(i));
    }
    List<CorpusProblem> all = new ArrayList<>(problems);
    all.addAll(other.problems);
    all.sort(Comparator.comparingInt(CorpusProblem::line));
    return new ComparisonSums(modelA, modelB, source, layers, heads, sums, analysed + other.analysed,
        skipped + other.skipped, all.subList(0, Math.min(all.size(), CorpusLines.KEPT_PROBLEMS)));
  }
}
