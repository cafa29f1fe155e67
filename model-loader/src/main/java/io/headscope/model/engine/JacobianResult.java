package io.headscope.model.engine;

/**
 * @param squaredNorms {@code [layer][j][i]} (0-based layer = layer 1): {@code ||d h^l_j / d h^(l-1)_i||_F^2},
 *     exact or the unbiased random-projection estimate of it; the squared norm is what the estimate is
 *     unbiased for, so it is what the engine returns
 * @param samples 0 when exact, else the projection vectors per output token
 */
public record JacobianResult(double[][][] squaredNorms, int samples) {

  /** {@code [layer][j][i]}: the Frobenius norms, the square roots of {@link #squaredNorms}. */
  public double[][][] norms() {
    double[][][] out = new double[squaredNorms.length][][];
    for (int l = 0; l < out.length; l++) {
      out[l] = new double[squaredNorms[l].length][];
      for (int j = 0; j < out[l].length; j++) {
        out[l][j] = new double[squaredNorms[l][j].length];
        for (int i = 0; i < out[l][j].length; i++) {
          out[l][j][i] = Math.sqrt(squaredNorms[l][j][i]);
        }
      }
    }
    return out;
  }
}
