package io.headscope.analysis.linguistics.probes;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Clark et al.'s attention-only probe (2019, Section 5): for word {@code i}, every candidate head
 * {@code j} (the other words, and {@code [CLS]} standing for the root) gets the score
 * {@code s_ij = sum_k w_k A^k[i][j] + u_k A^k[j][i]} over the heads {@code k}; {@code p(j | i)} is the
 * softmax of the scores over the candidates of {@code i}; training maximises the log-likelihood of the
 * gold heads with an L2 penalty. A word is right when its highest-scoring candidate is its gold head
 * (UAS over every word, punctuation included; ties go to the root, then the earlier word).
 *
 * <p>Weights are fitted on features divided by their standard deviation over the training
 * candidates, so the penalty treats every head alike; {@link Weights} gives them back in raw units.
 * Sentences of one word (no choice to make) are not usable.
 */
public final class HeadSelectionProbe implements Probe<PairAttention> {
  private final BooleanSupplier cancelled;

  public HeadSelectionProbe() {
    this(() -> false);
  }

  /** Training stops with a {@link java.util.concurrent.CancellationException} once {@code cancelled} turns true. */
  public HeadSelectionProbe(BooleanSupplier cancelled) {
    this.cancelled = cancelled;
  }

  /** A sentence with at least two words: each word has a choice. */
  public static boolean usable(PairAttention s) {
    return s.words() >= 2;
  }

  @Override
  public Fit fit(List<PairAttention> sentences, double l2, double[] start) {
    int dim = 2 * sentences.get(0).heads();
    double[] scale = HeadSelectionLoss.scales(sentences);
    double[] theta = Minimizer.minimize(new HeadSelectionLoss(sentences, scale, l2),
        start == null ? new double[dim] : start, cancelled, HeadSelectionLoss.curvature(sentences, scale, l2));
    double[] raw = new double[dim];
    for (int f = 0; f < dim; f++) {
      raw[f] = theta[f] / scale[f];
    }
    return new Fit(new Weights(raw, 0), theta);
  }

  @Override
  public Score evaluate(Weights w, List<PairAttention> sentences) {
    return evaluate(w, sentences, true);
  }

  /**
   * UAS over every word, or ({@code roots} false) over the words whose gold head is a word, the only
   * ones a single head can get right (for comparing with {@link
   * io.headscope.analysis.linguistics.DependencyHeads}).
   */
  public Score evaluate(Weights w, List<PairAttention> sentences, boolean roots) {
    long correct = 0;
    long items = 0;
    for (PairAttention s : sentences) {
      for (int i = 1; i <= s.words(); i++) {
        if (!roots && s.sentence().word(i).head() == 0) {
          continue;
        }
        items++;
        if (predict(w, s, i) == s.sentence().word(i).head()) {
          correct++;
        }
      }
    }
    return new Score(correct, items);
  }

  /** The candidate (0 = the root, else a word id) with the highest score for word {@code i}. */
  static int predict(Weights w, PairAttention s, int i) {
    int best = -1;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int j = 0; j <= s.words(); j++) {
      if (j == i) {
        continue;
      }
      double score = w.score(s.from(i, j), s.from(j, i));
      if (best < 0 || score > bestScore) {
        best = j;
        bestScore = score;
      }
    }
    return best;
  }
}
