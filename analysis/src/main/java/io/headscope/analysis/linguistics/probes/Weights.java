package io.headscope.analysis.linguistics.probes;

/**
 * A fitted linear probe in the units of the raw attention features: a pair's score (head selection)
 * or logit (edge) is {@code bias + sum_f weights[f] * x_f}. Feature {@code f < K} is a head's
 * attention in the first direction, {@code K + f} in the second, head {@code f = l * H + h}.
 *
 * @param weights per feature, {@code 2 K}
 * @param bias 0 for head selection (a constant cancels in the softmax)
 */
public record Weights(double[] weights, double bias) {
  public Weights {
    weights = weights.clone();
  }

  @Override
  public double[] weights() {
    return weights.clone();
  }

  /** {@code bias + w . (first, second)} for the two directions' attention of a pair. */
  double score(float[] first, float[] second) {
    int k = first.length;
    double s = bias;
    for (int f = 0; f < k; f++) {
      s += weights[f] * first[f] + weights[k + f] * second[f];
    }
    return s;
  }
}
