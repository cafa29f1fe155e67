package io.headscope.model.engine;

import io.headscope.model.tokenizer.Encoding;

/**
 * A batch of backward passes of one input with different embeddings at {@code hook_embed}: the points of
 * an integrated-gradients path in one pass. Row {@code b} runs the input with {@code embeddings[b]} in
 * place of its own; its metric is {@code mean_i (log p(target | position_i) - log p(contrast | position_i))}
 * (no contrast: {@code mean_i log p(target)}). One backward pass of the sum over rows gives every row's
 * own gradient: the rows do not interact.
 *
 * @param input the input (ids give the padding and the causal mask; its own embeddings are not used)
 * @param embeddings (N, T, d), the rows' embeddings
 * @param positions where the metric is read
 * @param target the token whose log-probability is read
 * @param contrast the token subtracted, or -1
 */
public record EmbeddingGradients(Encoding input, Activation embeddings, int[] positions, long target, long contrast) {

  public EmbeddingGradients {
    if (embeddings.rank() != 3 || embeddings.dim(1) != input.length()) {
      throw new IllegalArgumentException("embeddings of shape " + java.util.Arrays.toString(embeddings.shape())
          + " for an input of " + input.length() + " tokens");
    }
    positions = positions.clone();
  }

  /**
   * @param metrics each row's metric
   * @param gradient each row's {@code d metric / d embeddings}, (N, T, d)
   */
  public record Result(double[] metrics, Activation gradient) {}
}
