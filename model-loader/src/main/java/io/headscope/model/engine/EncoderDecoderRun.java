package io.headscope.model.engine;

/**
 * What one encoder-decoder pass gives, as Java arrays: every map of the three kinds ({@code
 * [layer][head][query][key]}: encoder {@code S x S}, decoder {@code T x T} (causal), cross {@code T x S}),
 * and when asked the next-token logits at every target position ({@code [T][V]}).
 */
public record EncoderDecoderRun(float[][][][] encoder, float[][][][] decoder, float[][][][] cross, float[][] logits) {}
