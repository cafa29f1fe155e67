package io.headscope.analysis.saliency;

import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.tokenizer.Encoding;
import java.util.function.DoubleConsumer;

/**
 * Token saliency of a metric at the read positions with respect to the input embeddings
 * ({@code hook_embed}): gradient x input, and integrated gradients (Sundararajan et al. 2017) along the
 * straight line from a baseline, by Gauss-Legendre quadrature (or the midpoint rule: {@link IgRule}). A token's score is the sum over the hidden
 * dimension of its embedding's attribution.
 */
public final class TokenSaliency {
  public static final int DEFAULT_STEPS = 50;

  /** Path points per backward pass: at 32 tokens of bert-base about 0.3 GB of native activations. */
  static final int ROWS_PER_PASS = 10;

  private final BertModel model;

  public TokenSaliency(BertModel model) {
    this.model = model;
  }

  /**
   * Gradient x input: {@code (x - b) . grad f(x)} per token, the first-order share of each token in
   * {@code f(x) - f(b)}; with the zero baseline the classic {@code x . grad f(x)}.
   */
  public SaliencyResult gradientTimesInput(Encoding input, SaliencyMetric metric, Baseline baseline) {
    EmbeddingFunction f = new EmbeddingFunction(model, input, metric);
    Activation x = embeddings(input);
    Activation b = baseline.of(model, input);
    double[] scores = perToken(x, b, f.gradient(x));
    return new SaliencyResult(input.tokens(), scores, "grad-x-input", baseline.label, 1, f.value(x), f.value(b));
  }

  /** Integrated gradients by the default rule ({@link IgRule#DEFAULT}, Gauss-Legendre). */
  public SaliencyResult integratedGradients(Encoding input, SaliencyMetric metric, Baseline baseline, int steps,
      DoubleConsumer progress) {
    return integratedGradients(input, metric, baseline, steps, IgRule.DEFAULT, progress);
  }

  /**
   * Integrated gradients: {@code (x - b) . sum_k w_k grad f(b + a_k (x - b))} per token, the {@code m =
   * steps} nodes {@code a_k} and weights {@code w_k} of {@code rule}; their sum approaches {@code f(x) - f(b)}
   * (completeness) as m grows.
   *
   * @param progress the share of steps done
   */
  public SaliencyResult integratedGradients(Encoding input, SaliencyMetric metric, Baseline baseline, int steps,
      IgRule rule, DoubleConsumer progress) {
    if (steps < 1) {
      throw new IllegalArgumentException("steps must be at least 1, got " + steps);
    }
    EmbeddingFunction f = new EmbeddingFunction(model, input, metric);
    Activation x = embeddings(input);
    Activation b = baseline.of(model, input);
    float[] xs = x.data();
    float[] bs = b.data();
    float[] sum = new float[xs.length];
    double[] acc = new double[xs.length];
    double[][] nw = rule.nodesAndWeights(steps);
    for (int k0 = 0; k0 < steps; k0 += ROWS_PER_PASS) {
      int n = Math.min(ROWS_PER_PASS, steps - k0);
      float[] rows = new float[n * xs.length];
      for (int r = 0; r < n; r++) {
        float alpha = (float) nw[0][k0 + r];
        for (int i = 0; i < xs.length; i++) {
          rows[r * xs.length + i] = bs[i] + alpha * (xs[i] - bs[i]);
        }
      }
      float[] g = f.gradients(new Activation(rows, new int[] {n, x.dim(1), x.dim(2)})).data(); // (n, T, d)
      for (int r = 0; r < n; r++) {
        for (int i = 0; i < xs.length; i++) {
          acc[i] += nw[1][k0 + r] * g[r * xs.length + i];
        }
      }
      progress.accept((k0 + n) / (double) steps);
    }
    for (int i = 0; i < sum.length; i++) {
      sum[i] = (float) acc[i];
    }
    String method = rule == IgRule.GAUSS_LEGENDRE ? "ig" : "ig-" + rule.label;
    return new SaliencyResult(input.tokens(), perToken(x, b, sum), method, baseline.label, steps, f.value(x),
        f.value(b));
  }

  /** The input's own embeddings at {@code hook_embed}, (1, T, d). */
  public Activation embeddings(Encoding input) {
    return model.run(RunRequest.of(input).capture(Capture.points(HookPoint.Kind.EMBED))).cache().get(HookPoint.embed());
  }

  private static double[] perToken(Activation x, Activation b, float[] grad) {
    int t = x.dim(1);
    int d = x.dim(2);
    double[] out = new double[t];
    for (int q = 0; q < t; q++) {
      double s = 0;
      for (int j = 0; j < d; j++) {
        int i = q * d + j;
        s += (double) (x.data()[i] - b.data()[i]) * grad[i];
      }
      out[q] = s;
    }
    return out;
  }
}
