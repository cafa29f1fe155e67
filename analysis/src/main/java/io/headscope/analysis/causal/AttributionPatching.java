package io.headscope.analysis.causal;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.GradientRequest;
import io.headscope.model.engine.HookPoint;
import java.util.List;

/**
 * Attribution patching (Nanda 2023; Syed et al. 2023): the first-order estimate of exact patching,
 * {@code dM/da (a_source - a_base)} summed over the cell, with the gradient taken on the base run (the
 * corrupted one when denoising).
 *
 * <p>The engine differentiates the masked-LM loss {@code -log p(token | position)} at one point per
 * backward pass, so the metric's gradient is assembled from those: the logit difference is
 * {@code log p(target) - log p(contrast)} (the normaliser cancels), and a probability's gradient is
 * {@code p} times its log's. One backward pass per layer, target or contrast, and measured position.
 */
public final class AttributionPatching {
  private final BertModel model;

  public AttributionPatching(BertModel model) {
    this.model = model;
  }

  /** {@code [layer][cell]}: the estimated change of the metric, patched minus base. */
  public double[][] run(PatchInputs in, TargetMetric metric, PatchSite site, PatchDirection direction) {
    PatchRuns runs = PatchRuns.of(model, in, metric, site, direction);
    int layers = model.config().numHiddenLayers();
    double[][] out = new double[layers][];
    for (int l = 0; l < layers; l++) {
      HookPoint point = HookPoint.of(site.kind(), l);
      Activation base = runs.baseValue(point);
      Activation source = runs.sourceValue(point);
      float[] g = metricGradient(runs, in.positions(), metric, point);
      int cells = CellSlice.count(site, base.shape());
      out[l] = new double[cells];
      for (int c = 0; c < cells; c++) {
        out[l][c] = CellSlice.of(site, base.shape(), c).dot(g, source.data(), base.data());
      }
    }
    return out;
  }

  /** {@code dM/d(value at point)} on the base run, flat as the point's value. */
  float[] metricGradient(PatchRuns runs, int[] positions, TargetMetric metric, HookPoint point) {
    float[] sum = null;
    for (int i = 0; i < positions.length; i++) {
      float[] row = runs.baseLogProbs()[i];
      sum = add(sum, logProbGradient(runs, positions[i], metric.target(), point),
          weight(metric, row[(int) metric.target()]) / positions.length);
      if (metric.hasContrast()) {
        sum = add(sum, logProbGradient(runs, positions[i], metric.contrast(), point),
            -weight(metric, row[(int) metric.contrast()]) / positions.length);
      }
    }
    return sum;
  }

  /** {@code d log p / d value} for a probability metric is scaled by p ({@code dp = p d log p}). */
  private static double weight(TargetMetric metric, float logp) {
    return metric.kind() == TargetMetric.Kind.PROB ? Math.exp(logp) : 1.0;
  }

  /** {@code d log p(token | position) / d value}: minus the loss's gradient. */
  private float[] logProbGradient(PatchRuns runs, int position, long token, HookPoint point) {
    Activation g = model.gradient(new GradientRequest(runs.base(), List.of(), new int[] {position}, new long[] {token},
        point)).point();
    float[] out = g.data().clone();
    for (int i = 0; i < out.length; i++) {
      out[i] = -out[i];
    }
    return out;
  }

  private static float[] add(float[] sum, float[] g, double w) {
    if (sum == null) {
      sum = new float[g.length];
    }
    for (int i = 0; i < g.length; i++) {
      sum[i] += (float) (w * g[i]);
    }
    return sum;
  }
}
