package io.headscope.model.engine;

import io.headscope.model.tokenizer.Encoding;

/**
 * Token-to-token Jacobian norms of every layer of one input: {@code ||d h^l_j / d h^(l-1)_i||_F^2}
 * through the whole layer (METHODS.md, "Token-to-token Jacobian norms").
 *
 * @param input the input (one, unpadded)
 * @param heads heads switched off while the layers run (their layers' Jacobians are of the layer as it
 *     runs with them off), or null for the intact model
 * @param samples 0: exact, one backward pass per output coordinate; k > 0: the random-projection
 *     estimate with k Gaussian vectors per output token
 * @param seed the seed of the projection vectors (unused when exact)
 */
public record JacobianRequest(Encoding input, Intervention.HeadMasks heads, int samples, long seed) {

  public JacobianRequest {
    if (input == null) {
      throw new IllegalArgumentException("no input");
    }
    if (samples < 0) {
      throw new IllegalArgumentException("samples must be 0 (exact) or positive, got " + samples);
    }
    if (heads != null && heads.multipliers().length != 1) {
      throw new IllegalArgumentException("one row of head multipliers for one input");
    }
  }

  public static JacobianRequest exact(Encoding input) {
    return new JacobianRequest(input, null, 0, 0);
  }

  public static JacobianRequest projected(Encoding input, int samples, long seed) {
    if (samples < 1) {
      throw new IllegalArgumentException("at least one sample");
    }
    return new JacobianRequest(input, null, samples, seed);
  }

  public boolean exact() {
    return samples == 0;
  }
}
