package io.headscope.analysis.compare;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusBatches;
import io.headscope.analysis.corpus.CorpusInput;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusProblem;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.TextEncoder;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Two checkpoints of the same shape head by head over a corpus (METHODS.md, "Base vs fine-tuned"): each
 * input is tokenized once, with model A's tokenizer, and the same token ids run through both models in
 * the same batches; per head only running sums are kept (cosine, divergence, and each model's category
 * counts), so memory holds one batch of maps of each model, whatever the corpus's size.
 */
public final class ModelComparison {
  /** Inputs per forward pass, as the corpus commands. */
  public static final int DEFAULT_BATCH = CorpusAnalysis.DEFAULT_BATCH;

  private final BertModel a;
  private final BertModel b;
  private final HeadClassifier classifier;
  private final int batchSize;
  private final boolean truncateLong;

  /** @throws HeadScopeException if the two models cannot be compared ({@link #checkComparable}) */
  public ModelComparison(BertModel a, BertModel b, HeadClassifier classifier, int batchSize) {
    this(a, b, classifier, batchSize, false);
  }

  private ModelComparison(BertModel a, BertModel b, HeadClassifier classifier, int batchSize, boolean truncateLong) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size " + batchSize);
    }
    HeadClassifier.refuseUnlessApplies(a);
    HeadClassifier.refuseUnlessApplies(b);
    checkComparable(a, b);
    this.a = a;
    this.b = b;
    this.classifier = classifier;
    this.batchSize = batchSize;
    this.truncateLong = truncateLong;
  }

  /** An input longer than the models is cut instead of skipped (one typed input, where the caller warns). */
  public ModelComparison truncatingLongInputs() {
    return new ModelComparison(a, b, classifier, batchSize, true);
  }

  /**
   * Refuses, in one line, two models whose heads do not correspond (layers, heads per layer) or that
   * would read the same token ids as different tokens (vocabulary, or number of positions).
   */
  public static void checkComparable(BertModel a, BertModel b) {
    int la = a.config().numHiddenLayers();
    int lb = b.config().numHiddenLayers();
    int ha = a.config().numAttentionHeads();
    int hb = b.config().numAttentionHeads();
    if (la != lb || ha != hb) {
      throw new HeadScopeException("Cannot compare " + a.name() + " (" + la + " layers x " + ha + " heads) with "
          + b.name() + " (" + lb + " layers x " + hb + " heads): the models must have the same shape.");
    }
    TextEncoder ta = a.tokenizer();
    TextEncoder tb = b.tokenizer();
    if (a.config().family() != b.config().family()) {
      throw new HeadScopeException("Cannot compare " + a.name() + " (" + a.config().family().displayName + ") with "
          + b.name() + " (" + b.config().family().displayName + "): inputs are tokenized once, with the special "
          + "tokens of one family, for both.");
    }
    if (ta.vocabSize() != tb.vocabSize()) {
      throw new HeadScopeException("Cannot compare " + a.name() + " with " + b.name() + ": their vocabularies differ ("
          + ta.vocabSize() + " and " + tb.vocabSize() + " tokens), and inputs are tokenized once, with "
          + a.name() + "'s tokenizer, for both.");
    }
    for (int id = 0; id < ta.vocabSize(); id++) {
      if (!ta.vocabToken(id).equals(tb.vocabToken(id))) {
        throw new HeadScopeException("Cannot compare " + a.name() + " with " + b.name() + ": their vocabularies "
            + "differ (token id " + id + " is \"" + ta.vocabToken(id) + "\" in one and \"" + tb.vocabToken(id)
            + "\" in the other), and inputs are tokenized once, with " + a.name() + "'s tokenizer, for both.");
      }
    }
    if (ta.maxLength() != tb.maxLength()) {
      throw new HeadScopeException("Cannot compare " + a.name() + " with " + b.name() + ": they take "
          + ta.maxLength() + " and " + tb.maxLength() + " positions, and inputs are tokenized once for both.");
    }
  }

  /** A corpus file as it is read (streamed; see {@link CorpusBatches}). */
  public ComparisonResult run(CorpusLines lines, CorpusAnalysis.Progress progress, BooleanSupplier cancelled) {
    return summarise(sums(lines, Shard.ALL, progress, cancelled), classifier);
  }

  /**
   * The same run stopping before the means, for one shard of the corpus: every shard reads and tokenizes
   * the whole corpus and runs its own batches of the single run's plan (see {@link CorpusBatches}); it
   * reports the skipped lines it owns, so each is counted once. A shard may find no input.
   */
  public ComparisonSums sums(CorpusLines lines, Shard shard, CorpusAnalysis.Progress progress,
      BooleanSupplier cancelled) {
    lines.reportingFor(shard);
    return sums(lines.name(), lines::next, lines::fractionRead, -1, lines::problems, lines::problemCount, progress,
        cancelled, shard);
  }

  /** A corpus read whole (the app's corpora, one typed input). */
  public ComparisonResult run(Corpus corpus, CorpusAnalysis.Progress progress, BooleanSupplier cancelled) {
    Iterator<CorpusInput> it = corpus.inputs().iterator();
    return summarise(sums(corpus.name(), () -> it.hasNext() ? it.next() : null, () -> -1, corpus.inputs().size(),
        corpus::problems, () -> corpus.problems().size(), progress, cancelled, Shard.ALL), classifier);
  }

  /**
   * The result of a run (or of shards' sums added up): per head the means over inputs, per layer the
   * means over its heads.
   *
   * @throws HeadScopeException if no input was analysed
   */
  public static ComparisonResult summarise(ComparisonSums s, HeadClassifier classifier) {
    if (s.analysed() == 0) {
      throw new HeadScopeException("No input of " + s.source() + " can be analysed"
          + (s.problems().isEmpty() ? "." : ": " + s.problems().get(0)
              + (s.skipped() > 1 ? " (and " + (s.skipped() - 1) + " more lines)." : "")));
    }
    int heads = s.heads();
    List<HeadComparison> perHead = s.sums().stream().map(h -> h.mean(classifier)).toList();
    List<LayerComparison> perLayer = new ArrayList<>();
    for (int l = 0; l < s.layers(); l++) {
      List<HeadComparison> layer = perHead.subList(l * heads, (l + 1) * heads);
      perLayer.add(new LayerComparison(l, layer.stream().mapToDouble(HeadComparison::cosine).sum() / heads,
          layer.stream().mapToDouble(HeadComparison::jsDivergence).sum() / heads, s.analysed()));
    }
    return new ComparisonResult(s.modelA(), s.modelB(), s.source(), s.layers(), heads, perHead, perLayer,
        s.analysed(), s.skipped(), s.problems());
  }

  private ComparisonSums sums(String name, Supplier<CorpusInput> source, DoubleSupplier fractionRead,
      int knownTotal, Supplier<List<CorpusProblem>> fileProblems, IntSupplier fileProblemCount,
      CorpusAnalysis.Progress progress, BooleanSupplier cancelled, Shard shard) {
    int layers = a.config().numHiddenLayers();
    int heads = a.config().numAttentionHeads();
    List<HeadPairSums> sums = Head.all(layers, heads).stream().map(HeadPairSums::new).toList();
    CorpusBatches.Outcome outcome = new CorpusBatches(a, batchSize, truncateLong).run(name, source, in -> {},
        fractionRead, knownTotal, progress, cancelled, shard, tracesA -> {
          if (cancelled.getAsBoolean()) {
            throw new CancellationException("cancelled");
          }
          // the same ids in the same batch (padded alike) through B
          List<Encoding> batch = tracesA.stream().map(AttentionTrace::encoding).toList();
          List<AttentionTrace> tracesB = b.trace(TraceRequest.of(batch).top(1));
          for (int t = 0; t < tracesA.size(); t++) {
            add(sums, tracesA.get(t), tracesB.get(t));
          }
        });
    List<CorpusProblem> problems = new ArrayList<>(fileProblems.get());
    problems.addAll(outcome.problems());
    problems.sort(Comparator.comparingInt(CorpusProblem::line));
    return new ComparisonSums(a.name(), b.name(), name, layers, heads, sums, outcome.analysed(),
        fileProblemCount.getAsInt() + outcome.problemCount(),
        problems.subList(0, Math.min(problems.size(), CorpusLines.KEPT_PROBLEMS)));
  }

  private void add(List<HeadPairSums> sums, AttentionTrace ta, AttentionTrace tb) {
    List<HeadScore> scoresA = classifier.classifyAll(ta);
    List<HeadScore> scoresB = classifier.classifyAll(tb);
    for (int i = 0; i < sums.size(); i++) {
      HeadPairSums s = sums.get(i);
      float[][] ma = ta.map(s.head());
      float[][] mb = tb.map(s.head());
      s.add(MapComparison.cosine(ma, mb), MapComparison.jsDivergence(ma, mb), scoresA.get(i), scoresB.get(i));
    }
  }
}
