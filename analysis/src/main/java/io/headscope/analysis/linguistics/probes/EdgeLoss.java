package io.headscope.analysis.linguistics.probes;

import java.util.List;

/**
 * The edge probe's training objective: the mean logistic loss of the pairs plus
 * {@code l2 / 2 * |theta|^2} (the bias, the last entry of {@code theta}, not penalised), for features
 * centred on {@code mean} and divided by {@code scale} (see {@link EdgeProbe}). Logits are kept flat,
 * pair by pair, so that the line search can interpolate them ({@link LineMemo}).
 */
final class EdgeLoss implements Minimizer.Objective {
  /** Pairs the preconditioner is estimated from at most (the first ones): an estimate is enough. */
  static final int CURVATURE_PAIRS = 5000;

  private final List<EdgeProbe.Sample> data;
  private final double[] mean;
  private final double[] scale;
  private final double l2;
  private final int pairs;
  private final LineMemo memo = new LineMemo();

  EdgeLoss(List<EdgeProbe.Sample> data, double[] mean, double[] scale, double l2) {
    this.data = data;
    this.mean = mean;
    this.scale = scale;
    this.l2 = l2;
    pairs = data.stream().mapToInt(s -> s.pairs().size()).sum();
  }

  @Override
  public double valueAndGradient(double[] theta, double[] gradient) {
    int dim = mean.length;
    int k = dim / 2;
    double[] logit = memo.scores(theta, gradient != null, this::logits);
    double[] g = gradient == null ? null : new double[dim]; // sum of c * x (raw features)
    double cSum = 0;
    double loss = 0;
    int at = 0;
    for (EdgeProbe.Sample s : data) {
      for (EdgeSampler.Pair p : s.pairs()) {
        double z = logit[at++];
        double y = p.edge() ? 1 : 0;
        loss += (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z))) - y * z;
        if (g != null) {
          double c = 1 / (1 + Math.exp(-z)) - y;
          cSum += c;
          float[] first = s.attention().from(p.first(), p.second());
          float[] second = s.attention().from(p.second(), p.first());
          for (int f = 0; f < k; f++) {
            g[f] += c * first[f];
            g[k + f] += c * second[f];
          }
        }
      }
    }
    double penalty = 0;
    for (int f = 0; f < dim; f++) {
      penalty += theta[f] * theta[f];
      if (g != null) {
        gradient[f] = (g[f] - mean[f] * cSum) / pairs / scale[f] + l2 * theta[f];
      }
    }
    if (g != null) {
      gradient[dim] = cSum / pairs;
    }
    return loss / pairs + 0.5 * l2 * penalty;
  }

  private double[] logits(double[] theta) {
    Weights w = EdgeProbe.raw(theta, mean, scale);
    double[] out = new double[pairs];
    int at = 0;
    for (EdgeProbe.Sample s : data) {
      for (EdgeSampler.Pair p : s.pairs()) {
        out[at++] = EdgeProbe.logit(w, s.attention(), p);
      }
    }
    return out;
  }

  /** Means and standard deviations of the features over every pair: {@code {mean, sd}}. */
  static double[][] moments(List<EdgeProbe.Sample> data) {
    int k = data.get(0).attention().heads();
    double[] sum = new double[2 * k];
    double[] sq = new double[2 * k];
    long count = 0;
    for (EdgeProbe.Sample s : data) {
      for (EdgeSampler.Pair p : s.pairs()) {
        count++;
        float[] first = s.attention().from(p.first(), p.second());
        float[] second = s.attention().from(p.second(), p.first());
        for (int f = 0; f < k; f++) {
          sum[f] += first[f];
          sq[f] += (double) first[f] * first[f];
          sum[k + f] += second[f];
          sq[k + f] += (double) second[f] * second[f];
        }
      }
    }
    return new double[][] {Standardise.means(sum, count), Standardise.deviations(sum, sq, count)};
  }

  /**
   * The objective's Hessian at zero weights (every probability one half): a quarter of the mean of
   * {@code z z^T} over the pairs, {@code z} the standardised features and a 1 for the bias, plus
   * {@code l2} on the diagonal of the weights; estimated from the first {@link #CURVATURE_PAIRS} pairs.
   * Preconditions the optimiser.
   */
  static double[][] curvature(List<EdgeProbe.Sample> data, double[] mean, double[] scale, double l2) {
    int dim = mean.length;
    int k = dim / 2;
    double[][] h = new double[dim + 1][dim + 1];
    double[] z = new double[dim + 1];
    z[dim] = 1;
    long count = 0;
    for (EdgeProbe.Sample s : data) {
      for (EdgeSampler.Pair p : s.pairs()) {
        if (count == CURVATURE_PAIRS) {
          break;
        }
        float[] first = s.attention().from(p.first(), p.second());
        float[] second = s.attention().from(p.second(), p.first());
        for (int f = 0; f < k; f++) {
          z[f] = (first[f] - mean[f]) / scale[f];
          z[k + f] = (second[f] - mean[k + f]) / scale[k + f];
        }
        for (int f = 0; f <= dim; f++) {
          for (int g = f; g <= dim; g++) {
            h[f][g] += 0.25 * z[f] * z[g];
          }
        }
        count++;
      }
    }
    return Standardise.symmetricMean(h, count, l2, dim);
  }
}
