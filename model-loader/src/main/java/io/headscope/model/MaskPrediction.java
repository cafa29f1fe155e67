package io.headscope.model;

import java.util.List;

/**
 * The masked-LM prediction at one {@code [MASK]} position.
 *
 * @param position index of the {@code [MASK]} token in the input
 * @param top the most probable tokens, most probable first
 * @param probabilities the whole distribution over the vocabulary (for KL divergences and ranks)
 */
public record MaskPrediction(int position, List<TokenProbability> top, float[] probabilities) {

  public MaskPrediction {
    top = List.copyOf(top);
  }

  /** One candidate token. */
  public record TokenProbability(String token, long id, double probability) {}

  /** 1-based rank of a vocabulary id in this distribution. */
  public int rankOf(long id) {
    float p = probabilities[(int) id];
    int rank = 1;
    for (float q : probabilities) {
      if (q > p) {
        rank++;
      }
    }
    return rank;
  }
}
