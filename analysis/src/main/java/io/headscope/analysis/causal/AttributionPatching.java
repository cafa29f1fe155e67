package io.headscope.analysis.causal;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.PointGradients;
import java.util.ArrayList;
import io.headscope.model.engine.HookPoint;
import java.util.List;

/**
 * Attribution patching (Nanda 2023; Syed et al. 2023): the first-order estimate of exact patching,
 * {@code dM/da (a_source - a_base)} summed over the cell, with the gradient taken on the base run (the
 * corrupted one when denoising).
 *
 * <p>One forward and one backward pass give every layer's gradient ({@link PointGradients}): the metric is
 * written as a weighted sum of log-probabilities, the logit difference as {@code log p(target) - log
 * p(contrast)} (the normaliser cancels), a probability's gradient as {@code p} times its log's.
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
    List<HookPoint> points = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      points.add(HookPoint.of(site.kind(), l));
    }
    List<Activation> gradients = model.gradients(metricTerms(runs, in.positions(), metric, points)).gradients();
    double[][] out = new double[layers][];
    for (int l = 0; l < layers; l++) {
      Activation base = runs.baseValue(points.get(l));
      Activation source = runs.sourceValue(points.get(l));
      float[] g = gradients.get(l).data();
      int cells = CellSlice.count(site, base.shape());
      out[l] = new double[cells];
      for (int c = 0; c < cells; c++) {
        out[l][c] = CellSlice.of(site, base.shape(), c).dot(g, source.data(), base.data());
      }
    }
    return out;
  }

  /**
   * The metric as a weighted sum of log-probabilities whose gradient is the metric's: per measured position,
   * the target's with weight 1 (a probability: p) and the contrast's with -1 (-p), over the positions' count.
   */
  static PointGradients metricTerms(PatchRuns runs, int[] positions, TargetMetric metric, List<HookPoint> points) {
    int per = metric.hasContrast() ? 2 : 1;
    int[] at = new int[positions.length * per];
    long[] tokens = new long[at.length];
    float[] weights = new float[at.length];
    for (int i = 0; i < positions.length; i++) {
      float[] row = runs.baseLogProbs()[i];
      at[i * per] = positions[i];
      tokens[i * per] = metric.target();
      weights[i * per] = (float) (weight(metric, row[(int) metric.target()]) / positions.length);
      if (metric.hasContrast()) {
        at[i * per + 1] = positions[i];
        tokens[i * per + 1] = metric.contrast();
        weights[i * per + 1] = (float) (-weight(metric, row[(int) metric.contrast()]) / positions.length);
      }
    }
    return new PointGradients(runs.base(), points, at, tokens, weights);
  }

  /** {@code dp = p d log p}: a probability metric weighs its log's gradient by p. */
  private static double weight(TargetMetric metric, float logp) {
    return metric.kind() == TargetMetric.Kind.PROB ? Math.exp(logp) : 1.0;
  }
}
