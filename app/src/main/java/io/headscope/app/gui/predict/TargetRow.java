package io.headscope.app.gui.predict;

import io.headscope.analysis.ablation.TargetMetric;
import java.util.Locale;

/**
 * The followed target at one {@code [MASK]}, before and after switching heads off: its probability,
 * its log-probability and, with a contrast token, the logit difference {@code z_target − z_contrast}
 * (equal to {@code log P(target) − log P(contrast)}: the softmax's normaliser cancels).
 *
 * @param position the {@code [MASK]}'s token index
 * @param logBefore log P(target) with every head on
 * @param logAfter log P(target) with the switched-off heads
 * @param contrastBefore log P(contrast) with every head on (NaN without a contrast)
 * @param contrastAfter log P(contrast) with the switched-off heads (NaN without a contrast)
 */
public record TargetRow(String target, String contrast, int position, double logBefore, double logAfter,
    double contrastBefore, double contrastAfter) {

  public boolean hasContrast() {
    return contrast != null;
  }

  /** The chosen metric before (with every head on). */
  public double metricBefore(TargetMetric m) {
    return m.value(logBefore, contrastBefore);
  }

  public double metricAfter(TargetMetric m) {
    return m.value(logAfter, contrastAfter);
  }

  /** "P(her) 12.3% → 8.1%", "log P −2.095 → −2.513", "logit diff her − him +0.840 → −0.120". */
  public String probabilityLine() {
    return String.format(Locale.ROOT, "P(%s) %s → %s", target, PredictionRow.percent(Math.exp(logBefore)),
        PredictionRow.percent(Math.exp(logAfter)))
        + (hasContrast() ? String.format(Locale.ROOT, "   P(%s) %s → %s", contrast,
            PredictionRow.percent(Math.exp(contrastBefore)), PredictionRow.percent(Math.exp(contrastAfter))) : "");
  }

  public String logProbabilityLine() {
    return String.format(Locale.ROOT, "log P(%s) %.3f → %.3f (%+.3f)", target, logBefore, logAfter, logAfter - logBefore);
  }

  /** The logit difference line, or "" without a contrast. */
  public String logitDifferenceLine() {
    if (!hasContrast()) {
      return "";
    }
    double b = logBefore - contrastBefore;
    double a = logAfter - contrastAfter;
    return String.format(Locale.ROOT, "logit diff %s − %s  %+.3f → %+.3f (%+.3f)", target, contrast, b, a, a - b);
  }
}
