package io.headscope.model.engine;

/**
 * Each layer's two norms as plain Java, {@code [layer][d]}: what edge attribution needs to follow a change
 * through them. A LayerNorm is {@code (x - mean) / sqrt(var + eps) * g + b} (the variance biased; ModernBERT's
 * without its shift: b zeros), an RMSNorm {@code x / sqrt(mean(x^2) + eps) * g} (Gemma's {@code 1 + w} already
 * added to g, as the engine holds it).
 *
 * @param ln1Weight post-LayerNorm: the norm after the attention ({@code ln(x + attn)}); pre-norm: the
 *     norm the attention reads ({@code attn(ln(x))}); a layer's entry is null where the layer has no such norm
 *     (ModernBERT's first layer: the identity)
 * @param ln1Bias its beta (null for an RMSNorm)
 * @param ln2Weight the same for the MLP
 * @param ln2Bias its beta (null for an RMSNorm)
 * @param eps the norms' epsilon
 * @param pre whether the model is pre-norm
 * @param rms whether the norms are RMSNorms
 */
public record LayerNormWeights(float[][] ln1Weight, float[][] ln1Bias, float[][] ln2Weight, float[][] ln2Bias,
    double eps, boolean pre, boolean rms) {

  /** LayerNorms (BERT's kin, GPT-2). */
  public LayerNormWeights(float[][] ln1Weight, float[][] ln1Bias, float[][] ln2Weight, float[][] ln2Bias,
      double eps, boolean pre) {
    this(ln1Weight, ln1Bias, ln2Weight, ln2Bias, eps, pre, false);
  }
}
