package io.headscope.model.engine;

/**
 * Each layer's two LayerNorms ({@code (x - mean) / sqrt(var + eps) * g + b}, the variance biased) as plain
 * Java, {@code [layer][d]}: what edge attribution needs to follow a change through the norms.
 *
 * @param ln1Weight post-LayerNorm: the norm after the attention ({@code ln(x + attn)}); pre-LayerNorm: the
 *     norm the attention reads ({@code attn(ln(x))})
 * @param ln1Bias its beta
 * @param ln2Weight the same for the MLP
 * @param ln2Bias its beta
 * @param eps the norms' epsilon
 * @param pre whether the model is pre-LayerNorm
 */
public record LayerNormWeights(float[][] ln1Weight, float[][] ln1Bias, float[][] ln2Weight, float[][] ln2Bias,
    double eps, boolean pre) {}
