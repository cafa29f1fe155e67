package io.headscope.analysis.saliency;

import java.util.List;

/**
 * Per-token attributions of a metric to the input embeddings.
 *
 * @param tokens the input's tokens
 * @param scores one per token: the dot product over the hidden dimension of (input - baseline) and the
 *     (averaged) gradient
 * @param method "grad-x-input", "ig" (integrated gradients by Gauss-Legendre quadrature) or "ig-midpoint"
 * @param steps integration steps (1 for gradient x input)
 * @param metricInput the metric on the input
 * @param metricBaseline the metric on the baseline
 */
public record SaliencyResult(List<String> tokens, double[] scores, String method, String baseline, int steps,
    double metricInput, double metricBaseline) {
  public SaliencyResult {
    tokens = List.copyOf(tokens);
    scores = scores.clone();
  }

  /** The sum of the attributions. */
  public double total() {
    double s = 0;
    for (double x : scores) {
      s += x;
    }
    return s;
  }

  /**
   * Integrated gradients' completeness error: {@code |sum of attributions - (f(input) - f(baseline))|}
   * relative to {@code |f(input) - f(baseline)|} (Sundararajan et al.'s axiom; 0 for the exact integral).
   */
  public double completenessError() {
    double delta = metricInput - metricBaseline;
    return Math.abs(total() - delta) / Math.abs(delta);
  }
}
