package io.headscope.analysis.heads;

import io.headscope.model.core.Head;
import java.util.List;
import java.util.Map;

/**
 * One head over a corpus (or over one input, where the shares are 0 or 1).
 *
 * @param head the head
 * @param inputs how many inputs were summarised
 * @param category the classifier's category of the mean over inputs (the rule on the mean scores, or the
 *     learned model on the mean features)
 * @param confidence its confidence there
 * @param vertical mean vertical score over the inputs
 * @param verticalFocus mean vertical focus
 * @param diagonal mean diagonal score
 * @param block mean block score (0 for single sentences)
 * @param heterogeneous mean heterogeneous score
 * @param shares the share of inputs in each category (all five keys, summing to 1)
 * @param majority the category of the most inputs (ties go to the earlier category in enum order)
 * @param topTokens the most frequent most-attended token over the inputs, then the next (at most two)
 * @param stats the mean of the per-input statistics
 * @param runnerUp the learned model's second likeliest category for the mean (null under the rule)
 * @param runnerUpConfidence its probability (0 under the rule)
 * @param uncertain whether the learned model is too unsure to name a category ({@link HeadScore#uncertain})
 */
public record HeadSummary(
    Head head,
    int inputs,
    HeadPattern category,
    double confidence,
    double vertical,
    double verticalFocus,
    double diagonal,
    double block,
    double heterogeneous,
    Map<HeadPattern, Double> shares,
    HeadPattern majority,
    List<String> topTokens,
    HeadStats stats,
    HeadPattern runnerUp,
    double runnerUpConfidence,
    boolean uncertain) {

  public HeadSummary {
    shares = java.util.Collections.unmodifiableMap(new java.util.EnumMap<>(shares));
    topTokens = List.copyOf(topTokens);
  }

  /** What the head is shown as: its category, or {@code uncertain}. */
  public String shownLabel() {
    return HeadPattern.shownLabel(category, uncertain);
  }

  public double share(HeadPattern p) {
    return shares.getOrDefault(p, 0.0);
  }

  /** The one or two token types with the largest weight share, largest first. */
  public List<TokenType> topTypes() {
    return List.of(TokenType.values()).stream()
        .sorted(java.util.Comparator.comparingDouble((TokenType t) -> -stats.weightShares()[t.ordinal()]))
        .limit(2)
        .toList();
  }

  /** The summary of a single input's score. */
  public static HeadSummary of(HeadScore s, HeadClassifier c) {
    HeadAccumulator acc = new HeadAccumulator(s.head());
    acc.add(s);
    return acc.summary(c);
  }
}
