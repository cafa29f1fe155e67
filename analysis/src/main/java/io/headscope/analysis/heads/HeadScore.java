package io.headscope.analysis.heads;

import io.headscope.model.core.Head;
import java.util.List;

/**
 * What one head's map looks like on one input: its category and the interpretable scores behind it
 * (each in [0,1]; definitions and thresholds in {@link Thresholds}).
 *
 * @param head the head (0-based inside; prints 1-based)
 * @param category the class chosen by {@link Thresholds}' rule
 * @param confidence how far the deciding scores are past their thresholds: 0.5 on the boundary, 1
 *     for a perfect example (see {@link Thresholds#decide})
 * @param vertical the weight on the one or two most-attended columns, above chance
 * @param verticalFocus of the cells that stand out in their row, the share in those columns
 * @param diagonal the weight on offsets -1, 0 and +1 outside the top columns, above chance
 * @param block pairs only (0 for one sentence): the weight kept within the query's own segment,
 *     beyond what the distances it attends at would keep, scaled to [0,1]
 * @param heterogeneous {@code 1 - max(vertical, diagonal, block)}: how much no simple pattern explains
 * @param topColumns the one or two most-attended key tokens, most attended first
 * @param dominantOffset the offset in {-1, 0, +1} with the most weight (previous, self, next)
 * @param stats the head's statistics on the same input
 * @param features what the learned classifier reads off the map ({@link MapFeatures})
 * @param runnerUp the learned model's second likeliest category (null under the rule)
 * @param runnerUpConfidence its probability (0 under the rule)
 * @param uncertain whether the learned model is too unsure to name a category ({@link
 *     LearnedRule#UNCERTAIN_BELOW}); {@code category} is then its likeliest, shown as "uncertain"
 */
public record HeadScore(
    Head head,
    HeadPattern category,
    double confidence,
    double vertical,
    double verticalFocus,
    double diagonal,
    double block,
    double heterogeneous,
    List<String> topColumns,
    int dominantOffset,
    HeadStats stats,
    MapFeatures features,
    HeadPattern runnerUp,
    double runnerUpConfidence,
    boolean uncertain) {

  public HeadScore {
    topColumns = List.copyOf(topColumns);
  }

  /** What the head is shown as: its category, or {@code uncertain}. */
  public String shownLabel() {
    return HeadPattern.shownLabel(category, uncertain);
  }
}
