package io.headscope.model.engine;

import java.util.List;

/**
 * What a full run reads from the model's heads on top of the encoder, besides the captured points.
 *
 * <p>The masked-LM log-probabilities and comparisons are given per input as a <em>cycle</em>: row
 * {@code r} of the batch reads entry {@code r % k} of a list of {@code k}. One entry serves every row
 * (one input and its variants); {@code n} entries serve a batch of {@code n} inputs and, repeated, the
 * variant-major rows {@code v * n + i} of the sweeps that run many variants of each.
 *
 * @param maskedLmMaskId when >= 0, the masked-LM distribution at every position holding this id
 *     (the tokenizer's {@code [MASK]}); {@link #NEXT_TOKEN} for the distribution at each input's last
 *     token; -1 for none
 * @param classifier the sequence classifier's probabilities
 * @param logProbPositions when not null, the positions whose masked-LM log-probabilities over the
 *     vocabulary are read, a cycle of per-input position lists
 * @param comparisons when not null, a cycle of per-input comparisons: for each row and position, the
 *     log-probability of a target, the top token and the KL divergence from a reference distribution
 */
public record Readouts(long maskedLmMaskId, boolean classifier, List<int[]> logProbPositions,
    List<Comparison> comparisons) {

  public Readouts {
    logProbPositions = logProbPositions == null ? null : List.copyOf(logProbPositions);
    comparisons = comparisons == null ? null : List.copyOf(comparisons);
    if ((logProbPositions != null && logProbPositions.isEmpty()) || (comparisons != null && comparisons.isEmpty())) {
      throw new IllegalArgumentException("an empty cycle of readouts");
    }
  }

  /**
   * Compares a row's masked-LM distribution at {@code positions} with a reference.
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

  /**
   * In place of a mask id: read the distribution at each input's last token, which for a causal model
   * (GPT-2) is its prediction of the next token.
   */
  public static final long NEXT_TOKEN = Long.MIN_VALUE;

  public static Readouts none() {
    return new Readouts(-1, false, null, null);
  }

  public Readouts withMaskedLm(long maskId) {
    return new Readouts(maskId, classifier, logProbPositions, comparisons);
  }

  public Readouts withClassifier() {
    return new Readouts(maskedLmMaskId, true, logProbPositions, comparisons);
  }

  /** Log-probabilities at the same positions of every row. */
  public Readouts withLogProbs(int[] positions) {
    return withLogProbs(List.of(positions.clone()));
  }

  /** Log-probabilities at row {@code r}'s positions {@code perInput.get(r % perInput.size())}. */
  public Readouts withLogProbs(List<int[]> perInput) {
    return new Readouts(maskedLmMaskId, classifier, perInput.stream().map(int[]::clone).toList(), comparisons);
  }

  /** The same comparison for every row. */
  public Readouts withComparison(Comparison c) {
    return withComparisons(List.of(c));
  }

  /** Row {@code r} compared by {@code perInput.get(r % perInput.size())}. */
  public Readouts withComparisons(List<Comparison> perInput) {
    return new Readouts(maskedLmMaskId, classifier, logProbPositions, perInput);
  }

  public boolean isEmpty() {
    // NEXT_TOKEN is negative too, but it reads the last token's distribution
    return maskedLmMaskId < 0 && maskedLmMaskId != NEXT_TOKEN && !classifier && logProbPositions == null && comparisons == null;
  }
}
