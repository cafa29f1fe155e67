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
  public Fit fit(List<Sample> sentences, double l2, double[] start) {
    int dim = 2 * sentences.get(0).attention().heads();
    double[][] stats = EdgeLoss.moments(sentences);
    double[] mean = stats[0];
    double[] scale = stats[1];
    double[] theta = Minimizer.minimize(new EdgeLoss(sentences, mean, scale, l2),
        start == null ? new double[dim + 1] : start, cancelled, EdgeLoss.curvature(sentences, mean, scale, l2));
    return new Fit(raw(theta, mean, scale), theta);
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
}
