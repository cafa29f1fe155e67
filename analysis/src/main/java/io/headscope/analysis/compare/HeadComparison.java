package io.headscope.analysis.compare;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.model.core.Head;

/**
 * One head of model A against the same head of model B, over a corpus.
 *
 * @param cosine mean over inputs of the cosine similarity of the two flattened maps (1: the same map)
 * @param jsDivergence mean over inputs of the mean over query rows of the Jensen-Shannon divergence, in
 *     nats (0: the same map; at most ln 2)
 * @param categoryA the head's majority Kovaleva category in A over the inputs
 * @param categoryB the same in B
 * @param inputs the inputs the means are over
 */
public record HeadComparison(Head head, double cosine, double jsDivergence, HeadPattern categoryA,
    HeadPattern categoryB, int inputs) {

  public boolean categoryChanged() {
    return categoryA != categoryB;
  }
}
