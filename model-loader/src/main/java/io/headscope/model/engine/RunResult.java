package io.headscope.model.engine;

import java.util.Collections;
import java.util.List;

/**
 * What a run gives back: plain Java only.
 *
 * @param lengths each input's real length (the batch tensors are padded to {@code width})
 * @param width the padded length of the batch
 * @param cache the captured points
 * @param maskedLm per input, the distribution at each {@code [MASK]} (empty lists when not asked)
 * @param classProbabilities {@code [input][label]}, or null when not asked
 * @param logProbs {@code [row][position][vocab]} at the row's {@link Readouts#logProbPositions()}, or null
 * @param comparison per row, at the row's {@link Readouts#comparisons()} positions, or null
 */
public record RunResult(int[] lengths, int width, ActivationCache cache, List<List<MaskDistribution>> maskedLm,
    float[][] classProbabilities, float[][][] logProbs, TargetScores[] comparison) {

  /**
   * A run that read nothing at the top of the model (it stopped before the last layer, or only maps
   * were asked for): its captures, and no readouts.
   */
  public static RunResult unread(int[] lengths, int width, ActivationCache cache) {
    return new RunResult(lengths, width, cache, Collections.nCopies(lengths.length, List.of()), null, null, null);
  }

  /** The masked-LM distribution over the vocabulary at one position. */
  public record MaskDistribution(int position, float[] probabilities) {}

  /**
   * One row's comparison, per position: the target's log-probability, the most probable token, and
   * {@code KL(reference || row)} in nats, as float32 computed by the engine; the contrast's
   * log-probability when one was asked for (else null).
   */
  public record TargetScores(float[] targetLogProbs, long[] top, float[] kl, float[] contrastLogProbs) {}
}
