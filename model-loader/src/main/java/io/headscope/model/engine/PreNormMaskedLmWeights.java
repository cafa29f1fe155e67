package io.headscope.model.engine;

/**
 * What direct logit attribution needs of a pre-norm encoder with a masked-LM head (ModernBERT): the final norm the
 * residual stream passes before the head, and the head itself (dense, activation, norm, decoder rows of a few
 * tokens) as {@link PostLayerNormWeights} without layers of its own ({@code ln1Weight} and the others empty).
 *
 * @param finalLnWeight the final norm's gamma, (d)
 * @param finalLnBias its beta, (d) (zeros for ModernBERT's bias-free norms)
 * @param eps the final norm's epsilon
 * @param head the masked-LM head: {@code denseWeight} (e, d), {@code denseBias} (zeros where it has none), the
 *     head norm's gamma and beta, the decoder rows and biases of the asked tokens
 */
public record PreNormMaskedLmWeights(float[] finalLnWeight, float[] finalLnBias, double eps, PostLayerNormWeights head) {}
