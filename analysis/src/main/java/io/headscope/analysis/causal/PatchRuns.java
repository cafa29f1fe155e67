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
 * base) and the run whose values are put in (the source), each keeping the site's values at every layer,
 * the base also every layer's input (the patched runs start there), with the metric read from both.
 */
record PatchRuns(Encoding base, Encoding source, RunResult baseRun, RunResult sourceRun, float[][] baseLogProbs,
    float[][] cleanLogProbs, double cleanMetric, double corruptedMetric, boolean denoise) {

  static PatchRuns of(BertModel model, PatchInputs in, TargetMetric metric, PatchSite site, PatchDirection d) {
    return of(model, in, PatchMetric.of(metric), site, d);
  }

  static PatchRuns of(BertModel model, PatchInputs in, PatchMetric metric, PatchSite site, PatchDirection d) {
    return of(model, in, metric, List.of(site), d);
  }

  /** One pair of plain runs for several sites (the residual streams): every site's values kept in both. */
  static PatchRuns of(BertModel model, PatchInputs in, PatchMetric metric, List<PatchSite> sites, PatchDirection d) {
    boolean denoise = d == PatchDirection.DENOISE;
    Encoding base = denoise ? in.corrupted() : in.clean();
    Encoding source = denoise ? in.clean() : in.corrupted();
    Readouts read = Readouts.none().withLogProbs(in.positions());
    Set<HookPoint.Kind> kinds = new LinkedHashSet<>(List.of(HookPoint.Kind.RESID_PRE));
    Set<HookPoint.Kind> sourceKinds = new LinkedHashSet<>();
    for (PatchSite site : sites) {
      kinds.add(site.kind());
      sourceKinds.add(site.kind());
    }
    RunResult b = model.run(RunRequest.of(base).capture(new Capture(kinds, Set.of(), Set.of(),
        Capture.Stage.AFTER_INTERVENTIONS)).read(read));
    RunResult s = model.run(RunRequest.of(source).capture(new Capture(sourceKinds, Set.of(), Set.of(),
        Capture.Stage.AFTER_INTERVENTIONS)).read(read));
    float[][] clean = (denoise ? s : b).logProbs()[0];
    float[][] corrupted = (denoise ? b : s).logProbs()[0];
    if (metric.kl()) {
      // KL(clean || clean) is 0 by definition, not a rounding of it
      return new PatchRuns(base, source, b, s, b.logProbs()[0], clean, 0.0, kl(clean, corrupted), denoise);
    }
    return new PatchRuns(base, source, b, s, b.logProbs()[0], clean, value(metric.target(), clean),
        value(metric.target(), corrupted), denoise);
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
    return baseRun.cache().get(p);
  }

  Activation sourceValue(HookPoint p) {
    return sourceRun.cache().get(p);
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
