package io.headscope.analysis.circuits;

import io.headscope.model.engine.CompositionNorms.Mode;

/**
 * Composition scores of one mode for every pair of heads.
 *
 * @param scores {@code [l1][h1][l2][h2]}, 0-based, 0 where {@code l1 >= l2}
 * @param baseline what random matrices of the same shapes score, or null when not computed
 */
public record CompositionResult(Mode mode, int layers, int heads, double[][][][] scores,
    CompositionScores.Baseline baseline) {

  public double score(int senderLayer, int senderHead, int receiverLayer, int receiverHead) {
    return scores[senderLayer][senderHead][receiverLayer][receiverHead];
  }

  public CompositionResult withBaseline(CompositionScores.Baseline b) {
    return new CompositionResult(mode, layers, heads, scores, b);
  }
}
