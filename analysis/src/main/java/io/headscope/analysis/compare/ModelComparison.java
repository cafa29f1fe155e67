package io.headscope.analysis.compare;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusBatches;
import io.headscope.analysis.corpus.CorpusInput;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusProblem;
import io.headscope.analysis.heads.HeadAccumulator;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.analysis.shard.ExactSum;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.Head;
import io.headscope.model.HeadMask;
import io.headscope.model.HeadScopeException;
import io.headscope.model.tokenizer.BertTextEncoder;
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
    BertTextEncoder ta = a.tokenizer();
    BertTextEncoder tb = b.tokenizer();
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
    return run(lines.name(), lines::next, lines::fractionRead, -1, lines::problems, lines::problemCount, progress,
        cancelled);
  }

  /** A corpus read whole (the app's corpora, one typed input). */
  public ComparisonResult run(Corpus corpus, CorpusAnalysis.Progress progress, BooleanSupplier cancelled) {
    Iterator<CorpusInput> it = corpus.inputs().iterator();
    return run(corpus.name(), () -> it.hasNext() ? it.next() : null, () -> -1, corpus.inputs().size(),
        corpus::problems, () -> corpus.problems().size(), progress, cancelled);
  }

  /** Per-head running sums over the inputs. */
  private static final class Sums {
    final ExactSum cosine = new ExactSum();
    final ExactSum js = new ExactSum();
    final HeadAccumulator inA;
    final HeadAccumulator inB;

    Sums(Head h) {
      inA = new HeadAccumulator(h);
      inB = new HeadAccumulator(h);
    }
  }

  private ComparisonResult run(String name, Supplier<CorpusInput> source, DoubleSupplier fractionRead, int knownTotal,
      Supplier<List<CorpusProblem>> fileProblems, IntSupplier fileProblemCount, CorpusAnalysis.Progress progress,
      BooleanSupplier cancelled) {
    int layers = a.config().numHiddenLayers();
    int heads = a.config().numAttentionHeads();
    List<Head> all = Head.all(layers, heads);
    List<Sums> sums = all.stream().map(Sums::new).toList();
    CorpusBatches.Outcome outcome = new CorpusBatches(a, batchSize, truncateLong).run(name, source, in -> {},
        fractionRead, knownTotal, progress, cancelled, tracesA -> {
          if (cancelled.getAsBoolean()) {
            throw new CancellationException("cancelled");
          }
          // the same ids in the same batch (padded alike) through B
          List<Encoding> batch = tracesA.stream().map(AttentionTrace::encoding).toList();
          List<AttentionTrace> tracesB = b.trace(batch, HeadMask.NONE, 1);
          for (int t = 0; t < tracesA.size(); t++) {
            add(sums, all, tracesA.get(t), tracesB.get(t));
          }
        });
    int n = outcome.analysed();
    List<HeadComparison> perHead = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      Sums s = sums.get(i);
      perHead.add(new HeadComparison(all.get(i), s.cosine.value() / n, s.js.value() / n,
          s.inA.summary(classifier).majority(), s.inB.summary(classifier).majority(), n));
    }
    List<LayerComparison> perLayer = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      List<HeadComparison> layer = perHead.subList(l * heads, (l + 1) * heads);
      perLayer.add(new LayerComparison(l, layer.stream().mapToDouble(HeadComparison::cosine).sum() / heads,
          layer.stream().mapToDouble(HeadComparison::jsDivergence).sum() / heads, n));
    }
    List<CorpusProblem> problems = new ArrayList<>(fileProblems.get());
    problems.addAll(outcome.problems());
    problems.sort(Comparator.comparingInt(CorpusProblem::line));
    return new ComparisonResult(a.name(), b.name(), name, layers, heads, perHead, perLayer, n,
        fileProblemCount.getAsInt() + outcome.problemCount(), problems);
  }

  private void add(List<Sums> sums, List<Head> all, AttentionTrace ta, AttentionTrace tb) {
    List<HeadScore> scoresA = classifier.classifyAll(ta);
    List<HeadScore> scoresB = classifier.classifyAll(tb);
    for (int i = 0; i < all.size(); i++) {
      Head h = all.get(i);
      Sums s = sums.get(i);
      s.cosine.add(MapComparison.cosine(ta.map(h), tb.map(h)));
      s.js.add(MapComparison.jsDivergence(ta.map(h), tb.map(h)));
      s.inA.add(scoresA.get(i));
      s.inB.add(scoresB.get(i));
    }
  }
}
