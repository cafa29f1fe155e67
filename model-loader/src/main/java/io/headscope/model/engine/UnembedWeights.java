package io.headscope.model.engine;

/**
 * The linear end of a pre-LayerNorm model's output head, for direct logit attribution: the final
 * LayerNorm's scale and shift and the decoder rows of a few tokens (TransformerLens's {@code ln_final}
 * and {@code W_U[:, token]}), copied out as plain Java.
 *
 * @param lnWeight the final LayerNorm's gamma, (d)
 * @param lnBias its beta, (d)
 * @param eps its epsilon
 * @param rows the decoder row of each asked token, {@code [token][d]}
 * @param bias the decoder bias of each asked token (0 where the head has none, as GPT-2's)
 */
public record UnembedWeights(float[] lnWeight, float[] lnBias, double eps, float[][] rows, float[] bias) {}
