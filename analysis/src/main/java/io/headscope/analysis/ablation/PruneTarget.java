package io.headscope.analysis.ablation;

import io.headscope.model.core.Head;
import io.headscope.model.store.ProgressListener;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * What a pruning curve measures and how it ranks heads: a sequence classifier's accuracy on labelled
 * inputs ({@link ClassifierTarget}) or masked-LM quality on text ({@link MaskedLmTarget}).
 */
public interface PruneTarget {
  /** The metric's CSV-free name: {@code accuracy} or {@code logprob}. */
  String metric();

  /** The metric with {@code off} switched off (higher is better). */
  double measure(Set<Head> off, BooleanSupplier cancelled);

  /**
   * Michel et al.'s importance of every head with {@code off} already switched off: the mean over inputs
   * of {@code |dLoss/dm_h|}, {@code [layer][head]} (not normalised: {@link Pruning} normalises the
   * remaining heads).
   */
  double[][] importance(Set<Head> off, ProgressListener progress, BooleanSupplier cancelled);

  /**
   * The single-head sweep's change of the smooth score (gold log-likelihood, or masked-LM log-probability)
   * when each head alone is switched off from the intact model, {@code [layer][head]}.
   */
  double[][] sweepDelta(ProgressListener progress, BooleanSupplier cancelled);
}
