package io.headscope.model.engine;

/**
 * What a full run reads from the model's heads on top of the encoder, besides the captured points.
 *
 * @param maskedLmMaskId when >= 0, the masked-LM distribution at every position holding this id
 *     (the tokenizer's {@code [MASK]}); -1 for none
 * @param classifier the sequence classifier's probabilities
 * @param logProbPositions when not null, the masked-LM log-probabilities over the vocabulary at these
 *     positions of every row
 * @param comparison when not null, per row and position: the log-probability of a target, the top
 *     token and the KL divergence from a reference distribution
 */
public record Readouts(long maskedLmMaskId, boolean classifier, int[] logProbPositions, Comparison comparison) {

  /**
   * Compares every row's masked-LM distribution at {@code positions} with a reference.
   *
   * @param targets the token whose log-probability is read, one per position
   * @param reference log-probabilities {@code [position][vocab]}, e.g. the intact model's
   * @param contrasts a second token per position whose log-probability is read too, or null
   */
  public record Comparison(int[] positions, long[] targets, float[][] reference, long[] contrasts) {
    public Comparison {
      if (positions.length != targets.length || positions.length != reference.length
          || (contrasts != null && contrasts.length != positions.length)) {
        throw new IllegalArgumentException("positions, targets, contrasts and reference differ in length");
      }
    }

    public Comparison(int[] positions, long[] targets, float[][] reference) {
      this(positions, targets, reference, null);
    }
  }

  public static Readouts none() {
    return new Readouts(-1, false, null, null);
  }

  public Readouts withMaskedLm(long maskId) {
    return new Readouts(maskId, classifier, logProbPositions, comparison);
  }

  public Readouts withClassifier() {
    return new Readouts(maskedLmMaskId, true, logProbPositions, comparison);
  }

  public Readouts withLogProbs(int[] positions) {
    return new Readouts(maskedLmMaskId, classifier, positions.clone(), comparison);
  }

  public Readouts withComparison(Comparison c) {
    return new Readouts(maskedLmMaskId, classifier, logProbPositions, c);
  }

  public boolean isEmpty() {
    return maskedLmMaskId < 0 && !classifier && logProbPositions == null && comparison == null;
  }
}
