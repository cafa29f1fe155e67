package io.headscope.model.engine;

import io.headscope.model.tokenizer.Encoding;
import java.util.List;

/**
 * One backward pass of a weighted sum of masked-LM log-probabilities, {@code M = sum_i w_i log p(token_i |
 * position_i)}, differentiated at many hook points at once: what attribution patching needs of every layer
 * (a logit difference is {@code log p(a) - log p(b)}; a probability's gradient is {@code p} times its log's).
 *
 * <p>Each point gets a zero added to it that requires a gradient, {@code a + 0}, rather than becoming a leaf
 * itself: a leaf would cut the gradient of the points below it that flow through it (a head's output reaches
 * the top through the next layers' heads too), while the added zero leaves every path in place, so each
 * gradient is the total derivative {@code dM/da}, as TransformerLens's backward hooks give it.
 *
 * @param input the input (one)
 * @param points where to differentiate
 * @param positions the position of each term
 * @param tokens the token of each term
 * @param weights each term's weight {@code w_i}
 * @param embeddings null: the input's own embeddings; else (N, T, d) put in place of {@code hook_embed}, one row
 *     per pass of a batch of N (an integrated-gradients path): {@code M} is then the sum of the rows' metrics,
 *     and since rows do not interact each row's gradient is its own
 */
public record PointGradients(Encoding input, List<HookPoint> points, int[] positions, long[] tokens, float[] weights,
    Activation embeddings) {

  public PointGradients(Encoding input, List<HookPoint> points, int[] positions, long[] tokens, float[] weights) {
    this(input, points, positions, tokens, weights, null);
  }

  public PointGradients {
    points = List.copyOf(points);
    positions = positions.clone();
    tokens = tokens.clone();
    weights = weights.clone();
    if (positions.length != tokens.length || positions.length != weights.length || positions.length == 0) {
      throw new IllegalArgumentException("one position, token and weight per term, and at least one term");
    }
    if (points.isEmpty() || points.stream().distinct().count() != points.size()) {
      throw new IllegalArgumentException("no points, or a point twice");
    }
    if (embeddings != null && (embeddings.rank() != 3 || embeddings.dim(1) != input.length())) {
      throw new IllegalArgumentException("embeddings of shape " + java.util.Arrays.toString(embeddings.shape())
          + " for an input of " + input.length() + " tokens");
    }
  }

  /** The rows of the batch: 1, or the embeddings' N. */
  public int rows() {
    return embeddings == null ? 1 : embeddings.dim(0);
  }

  /**
   * @param value {@code M} on the pass
   * @param gradients {@code dM/da} at each point, in the request's order, shaped as the point (N rows with
   *     {@code embeddings})
   */
  public record Result(double value, List<Activation> gradients) {
    public Result {
      gradients = List.copyOf(gradients);
    }
  }
}
