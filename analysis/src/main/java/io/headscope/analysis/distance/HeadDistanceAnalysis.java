package io.headscope.analysis.distance;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusBatches;
import io.headscope.analysis.corpus.CorpusInput;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusProblem;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleConsumer;
import java.util.function.Supplier;

/**
 * Head distances over a corpus or one input: each input's all-pairs divergence ({@link
 * PairwiseDivergence}) added to one K x K sum, divided by the number of inputs at the end. Memory
 * holds one batch of maps and the sum, whatever the corpus's size.
 */
public final class HeadDistanceAnalysis {
  /**
   * Inputs per forward pass. Smaller than classification's 16: the pairs cost far more than the forward
   * pass, and progress is reported per batch.
   */
  public static final int DEFAULT_BATCH = 4;

  private final BertModel model;
  private final int batchSize;
  private final double smoothing;

  public HeadDistanceAnalysis(BertModel model, int batchSize) {
    this.model = model;
    this.batchSize = batchSize;
    this.smoothing = JensenShannon.CLARK_SMOOTHING;
  }

  public HeadDistanceAnalysis(BertModel model) {
    this(model, DEFAULT_BATCH);
  }

  /**
   * A corpus file as it is read (streamed; see {@link CorpusBatches}).
   *
   * @param maxInputs stop after this many analysed inputs (skipped lines do not count); 0 for all
   * @param cancelled polled between batches and inside an input's pairs; ends the run with a {@link
   *     CancellationException}
   */
  public HeadDistances run(CorpusLines lines, int maxInputs, CorpusAnalysis.Progress progress,
      BooleanSupplier cancelled) {
    return run(lines.name(), lines::next, maxInputs, lines::fractionRead, -1, lines::problems, lines::problemCount,
        progress, cancelled);
  }

  /** A corpus read whole (the app's shipped corpora and opened files). */
  public HeadDistances run(Corpus corpus, int maxInputs, CorpusAnalysis.Progress progress, BooleanSupplier cancelled) {
    Iterator<CorpusInput> it = corpus.inputs().iterator();
    int total = maxInputs > 0 ? Math.min(maxInputs, corpus.inputs().size()) : corpus.inputs().size();
    return run(corpus.name(), () -> it.hasNext() ? it.next() : null, maxInputs, () -> -1, total, corpus::problems,
        () -> corpus.problems().size(), progress, cancelled);
  }

  /**
   * One input already traced (the app's current input), with progress over its pairs.
   *
   * @param fraction hears the share of pairs done, on the caller's thread
   */
  public static HeadDistances of(AttentionTrace trace, BooleanSupplier cancelled, DoubleConsumer fraction) {
    double[][] js = PairwiseDivergence.of(trace.attention(), JensenShannon.CLARK_SMOOTHING, cancelled, fraction);
    return new HeadDistances(trace.model(), "text", trace.layers(), trace.heads(), js, 1, 0, List.of());
  }

  /**
   * @param maxInputs stop once this many inputs are taken for analysis (0: never)
   * @param fileProblems the lines the reader skipped, asked for after the run (a file is read as it runs)
   */
  private HeadDistances run(String name, Supplier<CorpusInput> source, int maxInputs,
      java.util.function.DoubleSupplier fractionRead, int knownTotal, Supplier<List<CorpusProblem>> fileProblems,
      java.util.function.IntSupplier fileProblemCount, CorpusAnalysis.Progress progress, BooleanSupplier cancelled) {
    int k = model.config().numHiddenLayers() * model.config().numAttentionHeads();
    double[][] sum = new double[k][k];
    int[] taken = {0};
    Supplier<CorpusInput> limited = () -> maxInputs > 0 && taken[0] >= maxInputs ? null : source.get();
    CorpusBatches.Outcome outcome = new CorpusBatches(model, batchSize, false).run(name, limited, in -> taken[0]++,
        fractionRead, knownTotal, progress, cancelled, traces -> {
          for (AttentionTrace t : traces) {
            double[][] js = PairwiseDivergence.of(t.attention(), smoothing, cancelled, f -> {});
            for (int a = 0; a < k; a++) {
              for (int b = 0; b < k; b++) {
                sum[a][b] += js[a][b];
              }
            }
          }
        });
    int n = outcome.analysed();
    for (double[] row : sum) {
      for (int b = 0; b < k; b++) {
        row[b] /= n;
      }
    }
    List<CorpusProblem> problems = new ArrayList<>(fileProblems.get());
    problems.addAll(outcome.problems());
    problems.sort(Comparator.comparingInt(CorpusProblem::line));
    return new HeadDistances(model.name(), name, model.config().numHiddenLayers(),
        model.config().numAttentionHeads(), sum, n, fileProblemCount.getAsInt() + outcome.problemCount(), problems);
  }
}
