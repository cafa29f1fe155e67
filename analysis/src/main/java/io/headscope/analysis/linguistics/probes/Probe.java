package io.headscope.analysis.linguistics.probes;

import java.util.List;

/**
 * A linear probe over the attention features of word pairs, trained and scored sentence by sentence
 * (so the held-out part of TRAIN is whole sentences).
 *
 * @param <D> one sentence's data
 */
interface Probe<D> {
  /** Fits the weights on these sentences with L2 strength {@code l2}. */
  Weights train(List<D> sentences, double l2);

  /** How many items of these sentences the weights get right. */
  Score evaluate(Weights w, List<D> sentences);

  /** Right out of items. */
  record Score(long correct, long items) {
    public double accuracy() {
      return items == 0 ? Double.NaN : correct / (double) items;
    }
  }
}
