package io.headscope.analysis.causal;

import io.headscope.analysis.ablation.TargetMetric;

/**
 * What activation patching measures at the read positions: a target's metric ({@link TargetMetric}:
 * logit difference, log-probability, probability), or the KL divergence {@code KL(P_clean || P_run)} of the
 * model's whole output distribution from the clean run's, in nats, the mean over the read positions.
 *
 * <p>KL is written as a metric with {@code M_clean = 0} and {@code M_corrupted = KL(clean || corrupted)}, so
 * the recovered share {@code (M_patched - M_corrupted) / (M_clean - M_corrupted)} is
 * {@code 1 - KL(clean || patched) / KL(clean || corrupted)} in both directions: denoising, the share of the
 * clean distribution the cell restores; noising, 1 = the cell changes nothing and {@code 1 - recovered} =
 * {@code KL(clean || patched) / KL(clean || corrupted)}, the share of the whole corruption's divergence that
 * corrupting this cell alone causes. It is kept apart from {@link TargetMetric.Kind} because the ablation
 * sweep and the app's predictions panel offer those kinds as a choice and have no KL to give.
 *
 * @param target the target metric, or with {@code kl} the target only reported (may be null)
 * @param kl whether the KL divergence is measured instead of the target
 */
public record PatchMetric(TargetMetric target, boolean kl) {

  public PatchMetric {
    if (!kl && target == null) {
      throw new IllegalArgumentException("a target metric needs its target");
    }
  }

  public static PatchMetric of(TargetMetric target) {
    return new PatchMetric(target, false);
  }

  /** @param reported a target named beside the KL (not measured), or null */
  public static PatchMetric kl(TargetMetric reported) {
    return new PatchMetric(reported, true);
  }

  /** The CSV name: {@code kl}, or the target metric's ({@code logit_diff}, ...). */
  public String column() {
    return kl ? "kl" : target.column();
  }

  /** How the recovered share is defined for this metric, for the JSON beside the CSV. */
  public String recoveredDefinition() {
    return kl ? "1 - KL(clean || patched) / KL(clean || corrupted)"
        : "(patched - corrupted) / (clean - corrupted)";
  }
}
