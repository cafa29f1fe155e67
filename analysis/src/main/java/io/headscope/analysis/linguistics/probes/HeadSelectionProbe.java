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
  public Weights train(List<PairAttention> sentences, double l2) {
    int dim = 2 * sentences.get(0).heads();
    double[] scale = scales(sentences);
    double[] theta =
        Minimizer.minimize((t, g) -> objective(sentences, scale, l2, t, g), new double[dim], cancelled);
    double[] raw = new double[dim];
    for (int f = 0; f < dim; f++) {
      raw[f] = theta[f] / scale[f];
    }
    return new Weights(raw, 0);
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

  /**
   * The mean negative log-likelihood of the gold heads plus {@code l2 / 2 * |theta|^2}, for weights
   * {@code theta} on features divided by {@code scale}; the gradient (if not null) is filled.
   */
  static double objective(List<PairAttention> data, double[] scale, double l2, double[] theta, double[] gradient) {
    int dim = theta.length;
    int k = dim / 2;
    double[] raw = new double[dim];
    for (int f = 0; f < dim; f++) {
      raw[f] = theta[f] / scale[f];
    }
    Weights w = new Weights(raw, 0);
    double[] g = gradient == null ? null : new double[dim]; // d loss / d raw weight
    double loss = 0;
    long items = 0;
    for (PairAttention s : data) {
      int n = s.words();
      double[] score = new double[n + 1];
      for (int i = 1; i <= n; i++) {
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j <= n; j++) {
          score[j] = j == i ? Double.NEGATIVE_INFINITY : w.score(s.from(i, j), s.from(j, i));
          max = Math.max(max, score[j]);
        }
        double z = 0;
        for (int j = 0; j <= n; j++) {
          z += Math.exp(score[j] - max); // exp(-inf) = 0 leaves the word itself out
        }
        int gold = s.sentence().word(i).head();
        loss += max + Math.log(z) - score[gold];
        items++;
        if (g != null) {
          for (int j = 0; j <= n; j++) {
            double coef = Math.exp(score[j] - max) / z - (j == gold ? 1 : 0); // p_ij - [j is gold]
            if (j == i || coef == 0) {
              continue;
            }
            float[] first = s.from(i, j);
            float[] second = s.from(j, i);
            for (int f = 0; f < k; f++) {
              g[f] += coef * first[f];
              g[k + f] += coef * second[f];
            }
          }
        }
      }
    }
    double penalty = 0;
    for (int f = 0; f < dim; f++) {
      penalty += theta[f] * theta[f];
    }
    if (g != null) {
      for (int f = 0; f < dim; f++) {
        gradient[f] = g[f] / items / scale[f] + l2 * theta[f];
      }
    }
    return loss / items + 0.5 * l2 * penalty;
  }

  /** Each feature's standard deviation over every candidate pair of the sentences (1 where it is 0). */
  static double[] scales(List<PairAttention> data) {
    int k = data.get(0).heads();
    double[] sum = new double[2 * k];
    double[] sq = new double[2 * k];
    long count = 0;
    for (PairAttention s : data) {
      for (int i = 1; i <= s.words(); i++) {
        for (int j = 0; j <= s.words(); j++) {
          if (j == i) {
            continue;
          }
          count++;
          float[] first = s.from(i, j);
          float[] second = s.from(j, i);
          for (int f = 0; f < k; f++) {
            sum[f] += first[f];
            sq[f] += (double) first[f] * first[f];
            sum[k + f] += second[f];
            sq[k + f] += (double) second[f] * second[f];
          }
        }
      }
    }
    return Standardise.deviations(sum, sq, count);
  }
}
