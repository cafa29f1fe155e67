package io.headscope.analysis.lens;

/**
 * What one layer's residual stream predicts at one read position when the model's own output head reads it.
 *
 * @param layer 0 for the embeddings, {@code l} (1-based) for the output of layer {@code l}
 * @param point the hook point read ({@code hook_embed}, {@code blocks.3.hook_resid_post})
 * @param position the 0-based token position
 * @param top the most probable token ids, best first
 * @param topProbs their probabilities
 * @param targetRank the followed target's rank (1 = top), or 0 when no target is followed
 * @param targetProb its probability (NaN without a target)
 * @param contrastRank the contrast's rank, or 0 without one
 * @param contrastProb its probability (NaN without one)
 */
public record LensRow(int layer, String point, int position, long[] top, float[] topProbs, int targetRank,
    double targetProb, int contrastRank, double contrastProb) {

  /** {@code log p(target) - log p(contrast)}, which is the logit difference (the normaliser cancels). */
  public double logitDiff() {
    return Math.log(targetProb) - Math.log(contrastProb);
  }
}
