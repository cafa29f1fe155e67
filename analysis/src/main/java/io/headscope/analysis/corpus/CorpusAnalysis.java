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
import io.headscope.model.Head;
import io.headscope.model.HeadMask;
import io.headscope.model.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
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
    void update(int done, int total);

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
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    List<Encoded> encoded = new ArrayList<>();
    List<CorpusInput> kept = new ArrayList<>();
    List<CorpusProblem> tooLong = new ArrayList<>(); // and, after the loop, the unusable lines
    List<CorpusProblem> skipped = new ArrayList<>();
    for (CorpusInput in : corpus.inputs()) {
      Encoding e;
      try {
        e = model.encode(in.a(), in.b());
      } catch (HeadScopeException unusable) {
        // e.g. only zero-width or control characters: nothing left after BERT's text cleaning
        skipped.add(new CorpusProblem(in.line(), unusable.getMessage() + " Skipped."));
        continue;
      }
      if (e.wasTruncated() && !truncateLong) {
        tooLong.add(new CorpusProblem(in.line(), "longer than the model's " + e.length() + " positions ("
            + e.droppedWordpieces() + " wordpieces too many); skipped"));
      } else {
        encoded.add(new Encoded(in, e));
        kept.add(in);
      }
    }
    tooLong.addAll(skipped);
    if (encoded.isEmpty()) {
      throw new HeadScopeException("No input of " + corpus.name() + " can be analysed"
          + (tooLong.isEmpty() ? "." : ": " + tooLong.get(0)
              + (tooLong.size() > 1 ? " (and " + (tooLong.size() - 1) + " more lines)." : "")));
    }
    encoded.sort(Comparator.comparingInt(x -> x.encoding().length()));

    List<Head> all = Head.all(layers, heads);
    List<HeadAccumulator> acc = all.stream().map(HeadAccumulator::new).toList();
    int total = encoded.size();
    progress.update(0, total);
    for (int start = 0; start < total; ) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("cancelled after " + start + " of " + total + " inputs");
      }
      int end = batchEnd(encoded, start);
      List<Encoding> batch = encoded.subList(start, end).stream().map(Encoded::encoding).toList();
      for (AttentionTrace t : model.trace(batch, HeadMask.NONE, 1)) {
        List<HeadScore> scores = classifier.classifyAll(t);
        for (int i = 0; i < scores.size(); i++) {
          acc.get(i).add(scores.get(i));
        }
      }
      start = end;
      progress.update(start, total);
    }
    return summarise(model.name(), corpus.withProblems(kept, tooLong), layers, heads, acc, classifier);
  }

  /** The result from per-head sums (also used for a single input). */
  public static CorpusResult summarise(String modelName, Corpus corpus, int layers, int heads,
      List<HeadAccumulator> acc, HeadClassifier classifier) {
    List<HeadSummary> perHead = acc.stream().map(a -> a.summary(classifier.thresholds())).toList();
    Map<HeadPattern, Double> model = new EnumMap<>(HeadPattern.class);
    for (HeadPattern p : HeadPattern.values()) {
      model.put(p, perHead.stream().mapToDouble(h -> h.share(p)).sum() / perHead.size());
    }
    List<HeadStats> stats = perHead.stream().map(HeadSummary::stats).toList();
    return new CorpusResult(modelName, corpus, layers, heads, perHead, model, LayerTokenTypes.of(stats, heads));
  }

  /**
   * A batch's maps take inputs x heads x layers x T^2 floats, natively and again as Java arrays, so the
   * batch is cut at a budget of attention cells as well as at the batch size: 16 inputs of 128 tokens
   * fit; inputs of 400 tokens go in batches of 1-2 instead of needing many gigabytes.
   */
  static final long CELL_BUDGET = 16L * 128 * 128;

  /** The end (exclusive) of the batch starting at {@code start}; inputs are sorted by length. */
  private int batchEnd(List<Encoded> encoded, int start) {
    int end = start + 1; // at least one input, however long
    while (end < encoded.size() && end - start < batchSize) {
      long width = encoded.get(end).encoding().length(); // the longest so far, as they are sorted
      if ((end - start + 1) * width * width > CELL_BUDGET) {
        break;
      }
      end++;
    }
    return end;
  }

  private record Encoded(CorpusInput input, Encoding encoding) {}
}
