package io.headscope.analysis.ablation;

/**
 * Michel et al.'s head importance {@code I_h = E_x |dLoss/dm_h|} at {@code m = 1}, 0-based
 * {@code [layer][head]}.
 *
 * @param importance the mean over inputs of {@code |dLoss/dm_h|}
 * @param normalized each layer's row divided by its l2 norm, as Michel et al. do
 * @param meanLoss the mean masked-LM loss (nats) of the intact model over the inputs
 */
public record ImportanceResult(int inputs, double[][] importance, double[][] normalized, double meanLoss) {

  /** Normalises each layer's scores by their l2 norm (a layer of zeros stays zero). */
  public static double[][] normalizePerLayer(double[][] importance) {
    double[][] out = new double[importance.length][];
    for (int l = 0; l < importance.length; l++) {
      double norm = 0;
      for (double v : importance[l]) {
        norm += v * v;
      }
      norm = Math.sqrt(norm);
      out[l] = new double[importance[l].length];
      for (int h = 0; h < importance[l].length; h++) {
        out[l][h] = norm > 0 ? importance[l][h] / norm : 0;
      }
    }
    return out;
  }
}
