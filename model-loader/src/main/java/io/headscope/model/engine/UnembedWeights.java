package io.headscope.model.engine;

/**
 * The linear end of a pre-norm model's output head, for direct logit attribution: the final norm's scale
 * and shift and the decoder rows of a few tokens (TransformerLens's {@code ln_final} and
 * {@code W_U[:, token]}), copied out as plain Java.
 *
 * @param rms the final norm is an RMSNorm (Llama, Qwen2, Mistral, Gemma): {@code g x / sqrt(mean(x^2) + eps)},
 *     nothing centred, no shift; otherwise a LayerNorm (GPT-2, GPT-NeoX)
 * @param lnWeight the final norm's gamma (Gemma's {@code 1 + w} as the engine holds it), (d)
 * @param lnBias its beta, (d); zeros for an RMSNorm
 * @param eps its epsilon
 * @param rows the decoder row of each asked token, {@code [token][d]}
 * @param bias the decoder bias of each asked token (0 where the head has none, as GPT-2's)
 */
public record UnembedWeights(boolean rms, float[] lnWeight, float[] lnBias, double eps, float[][] rows, float[] bias) {}
