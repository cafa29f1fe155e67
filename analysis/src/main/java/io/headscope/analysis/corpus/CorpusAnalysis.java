package io.headscope.analysis.corpus;

import io.headscope.analysis.heads.HeadAccumulator;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.analysis.heads.HeadStats;
import io.headscope.analysis.heads.HeadSummary;
import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Classifies every head on every input of a corpus in batched forward passes and keeps only running
 * sums: per-head category shares, mean scores and statistics, and per-layer token-type attention.
 *
 * <p>Inputs are sorted by length before batching, so a batch pads little; each batch's traces are
 * dropped once classified.
 */
public final class CorpusAnalysis {
  /** Inputs per forward pass: large enough to keep both cores busy, small enough to stay in memory. */
  public static final int DEFAULT_BATCH = 16;

  /** Reports progress: inputs done out of the total (called after each batch, on the caller's thread). */
  @FunctionalInterface
  public interface Progress {
    /** @param total the number of inputs, or -1 while a file is still being read */
    void update(int done, int total);

    /** After each batch: inputs done and the share of the file done (read, times the share of the inputs
     * read that are done; -1 when unknown). */
    default void read(int done, double fractionOfFile) {}

    Progress NONE = (done, total) -> {};
  }

  private final BertModel model;
  private final HeadClassifier classifier;
  private final int batchSize;
  private final boolean truncateLong;

  public CorpusAnalysis(BertModel model, HeadClassifier classifier, int batchSize) {
    this(model, classifier, batchSize, false);
  }

  private CorpusAnalysis(BertModel model, HeadClassifier classifier, int batchSize, boolean truncateLong) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size " + batchSize);
    }
    HeadClassifier.refuseUnlessApplies(model);
    this.model = model;
    this.classifier = classifier;
    this.batchSize = batchSize;
    this.truncateLong = truncateLong;
  }

  /**
   * The same analysis, but an input longer than the model is cut to its maximum positions (as
   * {@code attention} and {@code predict} do) instead of skipped: for one typed input, where the
   * caller warns, rather than a corpus, whose statistics should not mix cut and whole inputs.
   */
  public CorpusAnalysis truncatingLongInputs() {
    return new CorpusAnalysis(model, classifier, batchSize, true);
  }

  public CorpusAnalysis(BertModel model) {
    this(model, new HeadClassifier(), DEFAULT_BATCH);
  }

  /**
   * Runs the corpus.
   *
   * @param cancelled polled between batches; when it turns true the run stops with a {@link
   *     CancellationException} and nothing is returned
   * @throws HeadScopeException if no input fits the model
   */
  public CorpusResult run(Corpus corpus, Progress progress, BooleanSupplier cancelled) {
    java.util.Iterator<CorpusInput> it = corpus.inputs().iterator();
    List<CorpusInput> kept = new ArrayList<>();
    Run r = run(corpus.name(), () -> it.hasNext() ? it.next() : null, kept::add, () -> -1, corpus.inputs().size(),
        progress, cancelled, Shard.ALL);
    List<CorpusProblem> problems = new ArrayList<>(corpus.problems());
    problems.addAll(r.outcome().problems());
    problems.sort(Comparator.comparingInt(CorpusProblem::line));
    return summarise(model.name(), new Corpus(corpus.name(), kept, problems), layers(), heads(), r.acc(), classifier,
        r.outcome().analysed(), problems.size());
  }

  /**
   * Runs a corpus file as it is read: memory is bounded by one chunk of inputs (see {@link #CHUNK_INPUTS}),
   * not by the file, and progress starts with the first batch. The result's corpus lists the skipped
   * lines (the first {@link CorpusLines#KEPT_PROBLEMS} of the file's, and every input too long for the
   * model up to that many) but not the analysed inputs.
   */
  public CorpusResult run(CorpusLines lines, Progress progress, BooleanSupplier cancelled) {
    return summarise(sums(lines, Shard.ALL, progress, cancelled), classifier);
  }

  /**
   * The same run stopping before the means, for one shard of the corpus (see {@link CorpusBatches}'s
   * sharded run): every shard reads and tokenizes the whole corpus and runs its own batches of the
   * single run's plan; it reports the skipped lines it owns, so each is counted once.
   */
  public CorpusSums sums(CorpusLines lines, Shard shard, Progress progress, BooleanSupplier cancelled) {
    lines.reportingFor(shard);
    Run r = run(lines.name(), lines::next, in -> {}, lines::fractionRead, -1, progress, cancelled, shard);
    List<CorpusProblem> problems = new ArrayList<>(lines.problems());
    problems.addAll(r.outcome().problems());
    problems.sort(Comparator.comparingInt(CorpusProblem::line));
    int skipped = lines.problemCount() + r.outcome().problemCount();
    return new CorpusSums(model.name(), lines.name(), layers(), heads(), r.acc(), r.outcome().analysed(), skipped,
        problems);
  }

  /** The result of a streamed run (or of shards' sums added up). */
  public static CorpusResult summarise(CorpusSums s, HeadClassifier classifier) {
    if (s.analysed() == 0) {
      throw new HeadScopeException("No input of " + s.corpus() + " can be analysed"
          + (s.problems().isEmpty() ? "." : ": " + s.problems().get(0)
              + (s.skipped() > 1 ? " (and " + (s.skipped() - 1) + " more lines)." : "")));
    }
    return summarise(s.model(), new Corpus(s.corpus(), List.of(), s.problems()), s.layers(), s.heads(), s.acc(),
        classifier, s.analysed(), s.skipped());
  }

  /** See {@link CorpusBatches}: a corpus no larger than this runs exactly as one piece. */
  public static final int CHUNK_INPUTS = CorpusBatches.CHUNK_INPUTS;

  private record Run(List<HeadAccumulator> acc, CorpusBatches.Outcome outcome) {}

  private Run run(String name, java.util.function.Supplier<CorpusInput> source,
      java.util.function.Consumer<CorpusInput> analysedInput, java.util.function.DoubleSupplier fractionRead,
      int knownTotal, Progress progress, BooleanSupplier cancelled, Shard shard) {
    List<HeadAccumulator> acc = Head.all(layers(), heads()).stream().map(HeadAccumulator::new).toList();
    CorpusBatches.Outcome outcome = new CorpusBatches(model, batchSize, truncateLong).run(name, source,
        analysedInput, fractionRead, knownTotal, progress, cancelled, shard, traces -> {
          for (AttentionTrace t : traces) {
            List<HeadScore> scores = classifier.classifyAll(t);
            for (int i = 0; i < scores.size(); i++) {
              acc.get(i).add(scores.get(i));
            }
          }
        });
    return new Run(acc, outcome);
  }

  private int layers() {
    return model.config().numHiddenLayers();
  }

  private int heads() {
    return model.config().numAttentionHeads();
  }

  /** The result from per-head sums (also used for a single input). */
  public static CorpusResult summarise(String modelName, Corpus corpus, int layers, int heads,
      List<HeadAccumulator> acc, HeadClassifier classifier) {
    return summarise(modelName, corpus, layers, heads, acc, classifier, corpus.inputs().size(), corpus.problems().size());
  }

  private static CorpusResult summarise(String modelName, Corpus corpus, int layers, int heads,
      List<HeadAccumulator> acc, HeadClassifier classifier, int analysed, int skipped) {
    List<HeadSummary> perHead = acc.stream().map(a -> a.summary(classifier)).toList();
    Map<HeadPattern, Double> model = new EnumMap<>(HeadPattern.class);
    for (HeadPattern p : HeadPattern.values()) {
      model.put(p, perHead.stream().mapToDouble(h -> h.share(p)).sum() / perHead.size());
    }
    List<HeadStats> stats = perHead.stream().map(HeadSummary::stats).toList();
    return new CorpusResult(modelName, corpus, layers, heads, perHead, model, LayerTokenTypes.of(stats, heads),
        analysed, skipped);
  }

}
