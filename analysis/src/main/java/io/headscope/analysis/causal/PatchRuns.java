package io.headscope.analysis.causal;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The two plain runs that exact and attribution patching both start from: the run that is patched (the
 * base) and the run whose values are put in (the source), as one batch of two, keeping the site's values
 * and every layer's input (the patched runs start there) at every layer, with the metric read from both.
 */
record PatchRuns(Encoding base, Encoding source, RunResult pair, float[][] baseLogProbs, float[][] cleanLogProbs,
    double cleanMetric, double corruptedMetric, boolean denoise) {

  static PatchRuns of(BertModel model, PatchInputs in, TargetMetric metric, PatchSite site, PatchDirection d) {
    return of(model, in, PatchMetric.of(metric), site, d);
  }

  static PatchRuns of(BertModel model, PatchInputs in, PatchMetric metric, PatchSite site, PatchDirection d) {
    return of(model, in, metric, List.of(site), d);
  }

  /** One pair of plain runs for several sites (the residual streams): every site's values kept in both. */
  static PatchRuns of(BertModel model, PatchInputs in, PatchMetric metric, List<PatchSite> sites, PatchDirection d) {
    Set<HookPoint.Kind> kinds = new LinkedHashSet<>();
    for (PatchSite site : sites) {
      kinds.add(site.kind());
    }
    return ofPoints(model, in, metric, kinds, d);
  }

  /** The pair of plain runs keeping these kinds of points (and every layer's input) at every layer. */
  static PatchRuns ofPoints(BertModel model, PatchInputs in, PatchMetric metric, Set<HookPoint.Kind> points,
      PatchDirection d) {
    boolean denoise = d == PatchDirection.DENOISE;
    Encoding base = denoise ? in.corrupted() : in.clean();
    Encoding source = denoise ? in.clean() : in.corrupted();
    Readouts read = Readouts.none().withLogProbs(in.positions());
    Set<HookPoint.Kind> kinds = new LinkedHashSet<>(List.of(HookPoint.Kind.RESID_PRE));
    kinds.addAll(points);
    // both runs in one batch, row 0 the base and row 1 the source: one pass instead of two (the inputs have
    // the same length, so nothing is padded)
    RunResult r = model.run(RunRequest.of(List.of(base, source)).capture(new Capture(kinds, Set.of(), Set.of(),
        Capture.Stage.AFTER_INTERVENTIONS)).read(read));
    float[][] b = r.logProbs()[0];
    float[][] s = r.logProbs()[1];
    float[][] clean = denoise ? s : b;
    float[][] corrupted = denoise ? b : s;
    if (metric.kl()) {
      // KL(clean || clean) is 0 by definition, not a rounding of it
      return new PatchRuns(base, source, r, b, clean, 0.0, kl(clean, corrupted), denoise);
    }
    return new PatchRuns(base, source, r, b, clean, value(metric.target(), clean), value(metric.target(), corrupted),
        denoise);
  }

  /** {@code KL(p || q)} in nats from {@code [position][vocab]} log-probabilities, in double: its mean over the positions. */
  static double kl(float[][] logp, float[][] logq) {
    double sum = 0;
    for (int i = 0; i < logp.length; i++) {
      for (int v = 0; v < logp[i].length; v++) {
        sum += Math.exp(logp[i][v]) * ((double) logp[i][v] - logq[i][v]);
      }
    }
    return sum / logp.length;
  }

  /** The metric of one patched row: the target's from its log-probabilities, or its KL from the clean run. */
  static double value(PatchMetric metric, RunResult.TargetScores s) {
    if (!metric.kl()) {
      return value(metric.target(), s);
    }
    double sum = 0;
    for (float v : s.kl()) {
      sum += v;
    }
    return sum / s.kl().length;
  }

  /** The metric of the run that is patched: the corrupted one's when denoising, the clean one's when noising. */
  double baseMetric() {
    return denoise ? corruptedMetric : cleanMetric;
  }

  Activation baseValue(HookPoint p) {
    return row(pair.cache().get(p), 0);
  }

  Activation sourceValue(HookPoint p) {
    return row(pair.cache().get(p), 1);
  }

  /** Row {@code r} of a batch's value, as a batch of one. */
  private static Activation row(Activation a, int r) {
    int size = a.data().length / a.shape()[0];
    int[] shape = a.shape();
    shape[0] = 1;
    return new Activation(java.util.Arrays.copyOfRange(a.data(), r * size, (r + 1) * size), shape);
  }

  /** The metric from {@code [position][vocab]} log-probabilities: its mean over the positions, as the sweep's. */
  static double value(TargetMetric metric, float[][] logp) {
    double sum = 0;
    for (float[] row : logp) {
      sum += metric.value(row[(int) metric.target()], metric.hasContrast() ? row[(int) metric.contrast()] : 0);
    }
    return sum / logp.length;
  }

  /** The metric from one row's comparison scores. */
  static double value(TargetMetric metric, RunResult.TargetScores s) {
    double sum = 0;
    for (int i = 0; i < s.targetLogProbs().length; i++) {
      sum += metric.value(s.targetLogProbs()[i], metric.hasContrast() ? s.contrastLogProbs()[i] : 0);
    }
    return sum / s.targetLogProbs().length;
  }
}
