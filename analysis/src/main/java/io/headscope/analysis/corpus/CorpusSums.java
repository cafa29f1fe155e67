package io.headscope.analysis.corpus;

import io.headscope.analysis.heads.HeadAccumulator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A corpus run before its means are taken: what a shard of a corpus writes, and what shards add up to
 * (exactly, see {@link HeadAccumulator}) before {@link CorpusAnalysis#summarise(CorpusSums,
 * io.headscope.analysis.heads.HeadClassifier)} turns them into the result one run would give.
 *
 * @param model the model's name
 * @param corpus the corpus's name (a path), for messages
 * @param acc per-head sums, layer by layer
 * @param analysed inputs analysed
 * @param skipped lines skipped (the first {@link CorpusLines#KEPT_PROBLEMS} are in problems)
 * @param problems the first skipped lines, in line order
 */
public record CorpusSums(String model, String corpus, int layers, int heads, List<HeadAccumulator> acc, int analysed,
    int skipped, List<CorpusProblem> problems) {
  public CorpusSums {
    acc = List.copyOf(acc);
    problems = List.copyOf(problems);
  }

  /** These sums and another shard's of the same model and corpus. */
  public CorpusSums plus(CorpusSums other) {
    if (other.layers != layers || other.heads != heads) {
      throw new IllegalArgumentException("sums of models of different sizes");
    }
    for (int i = 0; i < acc.size(); i++) {
      acc.get(i).add(other.acc.get(i));
    }
    List<CorpusProblem> all = new ArrayList<>(problems);
    all.addAll(other.problems);
    all.sort(Comparator.comparingInt(CorpusProblem::line));
    return new CorpusSums(model, corpus, layers, heads, acc, analysed + other.analysed, skipped + other.skipped,
        all.subList(0, Math.min(all.size(), CorpusLines.KEPT_PROBLEMS)));
  }
}
