package io.headscope.model.testing;

import io.headscope.model.core.BertConfig;

/**
 * Rounding bounds for tests that compare two float32 computations of one real number, or a float32 one
 * with its exact value, derived from the length of the computation rather than read off one CPU.
 *
 * <p>A float32 sum of {@code n} terms, in any order and any blocking (MKL's and libtorch's kernels differ
 * between CPUs exactly there), is within {@code gamma_n = n u / (1 - n u)} of the exact sum, relative to
 * the sum of the terms' magnitudes (Higham, <i>Accuracy and Stability of Numerical Algorithms</i>, 2nd ed.,
 * section 3.1), with {@code u = 2^-24}. Along a forward pass the first-order errors of the sums on the
 * longest chain of dependent sums add, and BERT's LayerNorms and softmaxes renormalise every layer's
 * output, so a value reached through a chain of {@code N} summed terms carries a relative error of at most
 * about {@code gamma_N} of its scale. Two float32 runs of the same quantity (one batched, one alone; one
 * CPU, another) are each within that of the exact value, so within twice it of each other.
 */
public final class Float32Bounds {
  /** The unit roundoff of float32 (round to nearest). */
  public static final double U = 0x1p-24;

  private Float32Bounds() {}

  /** {@code gamma_n = n u / (1 - n u)}. */
  public static double gamma(long n) {
    return n * U / (1 - n * U);
  }

  /**
   * The number of summed terms on the longest chain of a BERT forward pass of {@code tokens} tokens from
   * the embeddings to one token's log-probabilities: per layer the query/key/value products ({@code d}),
   * the scores ({@code d_head}), the softmax's sum and pattern times values ({@code T} each), the output
   * projection ({@code d}), two LayerNorms' mean and variance ({@code 4 d}), the feed-forward's two
   * products ({@code d + f}); then the masked-LM head's transform and LayerNorm ({@code 3 d}), the decoder
   * ({@code d}) and the log-softmax's sum over the vocabulary ({@code V}).
   */
  public static long forwardChain(BertConfig c, int tokens) {
    long d = c.hiddenSize();
    long perLayer = d + d / c.numAttentionHeads() + 2L * tokens + d + 4 * d + d + c.intermediateSize();
    return c.numHiddenLayers() * perLayer + 4 * d + c.vocabSize();
  }

  /** The relative bound of one forward pass: {@code gamma} of {@link #forwardChain}. */
  public static double forward(BertConfig c, int tokens) {
    return gamma(forwardChain(c, tokens));
  }

  /**
   * The relative bound of a gradient taken by one backward pass: the backward pass walks the same chain
   * in reverse (each product's transpose sums as many terms), on top of the forward values it reuses.
   */
  public static double gradient(BertConfig c, int tokens) {
    return gamma(2 * forwardChain(c, tokens));
  }
}
