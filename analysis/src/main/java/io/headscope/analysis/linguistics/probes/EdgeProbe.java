package io.headscope.analysis.linguistics.probes;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Coenen et al.'s (2019) edge probe: logistic regression on the 144 heads' attention in both
 * directions between two words ({@code first -> second}, then {@code second -> first}, the earlier word
 * first) predicts whether a dependency arc joins them; a pair is right when the predicted probability
 * of an arc is above one half and there is one, or at most one half and there is none.
 *
 * <p>Features are centred and divided by their standard deviation over the training pairs before the
 * fit (the bias is not penalised); {@link Weights} gives the model back in raw units.
 */
public final class EdgeProbe implements Probe<EdgeProbe.Sample> {
  private final BooleanSupplier cancelled;

  public EdgeProbe() {
    this(() -> false);
  }

  /** Training stops with a {@link java.util.concurrent.CancellationException} once {@code cancelled} turns true. */
  public EdgeProbe(BooleanSupplier cancelled) {
    this.cancelled = cancelled;
  }

  /** One sentence's features and its sampled pairs ({@link EdgeSampler}). */
  public record Sample(PairAttention attention, List<EdgeSampler.Pair> pairs) {
    public Sample {
      pairs = List.copyOf(pairs);
    }
  }

  @Override
  public Weights train(List<Sample> sentences, double l2) {
    int dim = 2 * sentences.get(0).attention().heads();
    double[][] stats = moments(sentences);
    double[] mean = stats[0];
    double[] scale = stats[1];
    double[] theta =
        Minimizer.minimize((t, g) -> objective(sentences, mean, scale, l2, t, g), new double[dim + 1], cancelled);
    return raw(theta, mean, scale);
  }

  @Override
  public Score evaluate(Weights w, List<Sample> sentences) {
    long correct = 0;
    long items = 0;
    for (Sample s : sentences) {
      for (EdgeSampler.Pair p : s.pairs()) {
        items++;
        if (logit(w, s.attention(), p) > 0 == p.edge()) {
          correct++;
        }
      }
    }
    return new Score(correct, items);
  }

  static double logit(Weights w, PairAttention a, EdgeSampler.Pair p) {
    return w.score(a.from(p.first(), p.second()), a.from(p.second(), p.first()));
  }

  /** Standardised weights {@code theta} (bias last) in raw units: {@code theta_f / sd_f}, bias less {@code w . mean}. */
  static Weights raw(double[] theta, double[] mean, double[] scale) {
    int dim = mean.length;
    double[] w = new double[dim];
    double bias = theta[dim];
    for (int f = 0; f < dim; f++) {
      w[f] = theta[f] / scale[f];
      bias -= w[f] * mean[f];
    }
    return new Weights(w, bias);
  }

  /**
   * The mean logistic loss of the pairs plus {@code l2 / 2 * |theta|^2} (bias, the last entry of
   * {@code theta}, not penalised), for features centred on {@code mean} and divided by {@code scale};
   * the gradient (if not null) is filled.
   */
  static double objective(List<Sample> data, double[] mean, double[] scale, double l2, double[] theta,
      double[] gradient) {
    int dim = mean.length;
    int k = dim / 2;
    Weights w = raw(theta, mean, scale);
    double[] g = gradient == null ? null : new double[dim]; // sum of c * x (raw features)
    double cSum = 0;
    double loss = 0;
    long items = 0;
    for (Sample s : data) {
      for (EdgeSampler.Pair p : s.pairs()) {
        double z = logit(w, s.attention(), p);
        double y = p.edge() ? 1 : 0;
        loss += (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z))) - y * z;
        items++;
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
    }
    if (g != null) {
      for (int f = 0; f < dim; f++) {
        gradient[f] = (g[f] - mean[f] * cSum) / items / scale[f] + l2 * theta[f];
      }
      gradient[dim] = cSum / items;
    }
    return loss / items + 0.5 * l2 * penalty;
  }

  /** Means and standard deviations of the features over every pair: {@code {mean, sd}}. */
  static double[][] moments(List<Sample> data) {
    int k = data.get(0).attention().heads();
    double[] sum = new double[2 * k];
    double[] sq = new double[2 * k];
    long count = 0;
    for (Sample s : data) {
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
}
