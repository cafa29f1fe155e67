package io.headscope.model.engine;

/**
 * What direct logit attribution needs of a post-LayerNorm model (BERT and the other encoders), copied out
 * as plain Java: every LayerNorm a head's output passes on its way to the logits, and the masked-LM
 * head's linear parts with the decoder rows of a few tokens. Linear weights in PyTorch's (out, in) layout.
 *
 * @param ln1Weight each layer's attention-output LayerNorm gamma, {@code [layer][d]}
 * @param ln1Bias its beta
 * @param ln2Weight each layer's output LayerNorm gamma, {@code [layer][d]}
 * @param ln2Bias its beta
 * @param eps the LayerNorms' epsilon (one value for the whole model)
 * @param denseWeight the head's transform, {@code [e][d]}
 * @param denseBias its bias, (e)
 * @param headLnWeight the head's LayerNorm gamma, (e)
 * @param headLnBias its beta, (e)
 * @param rows the decoder row (the tied word embedding) of each asked token, {@code [token][e]}
 * @param bias the decoder bias of each asked token
 */
public record PostLayerNormWeights(float[][] ln1Weight, float[][] ln1Bias, float[][] ln2Weight, float[][] ln2Bias,
    double eps, float[][] denseWeight, float[] denseBias, float[] headLnWeight, float[] headLnBias, float[][] rows,
    float[] bias) {}
