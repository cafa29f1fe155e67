package io.headscope.analysis.linguistics.probes;

import java.util.List;

/**
 * A linear probe over the attention features of word pairs, trained and scored sentence by sentence
 * (so the held-out part of TRAIN is whole sentences).
 *
 * @param <D> one sentence's data
 */
interface Probe<D> {
  /**
   * Fits the weights on these sentences with L2 strength {@code l2}, starting from {@code start}
   * (standardised weights of an earlier fit, or null for zeros: the optimum is the same, only the
   * time to reach it differs).
   */
  Fit fit(List<D> sentences, double l2, double[] start);

  /** Fits from zero. */
  default Weights train(List<D> sentences, double l2) {
    return fit(sentences, l2, null).weights();
  }

  /** How many items of these sentences the weights get right. */
  Score evaluate(Weights w, List<D> sentences);

  /** The weights in raw units and the standardised ones the optimiser moved (to start the next fit from). */
  record Fit(Weights weights, double[] theta) {}

  /** Right out of items. */
  record Score(long correct, long items) {
    public double accuracy() {
      return items == 0 ? Double.NaN : correct / (double) items;
    }
  }
}
