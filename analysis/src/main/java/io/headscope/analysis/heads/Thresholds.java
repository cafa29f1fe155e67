package io.headscope.analysis.heads;

/**
 * The one place where the category rule and its thresholds live.
 *
 * <p>The scores (each in [0,1], computed by {@link HeadClassifier}). Most are a mass {@code w} of
 * attention (mean over query rows) on some cells, corrected for chance: {@code max(0, (w - u) / (1 -
 * u))}, where {@code u} is the mass a uniform map puts on the same cells. 0 is "no more than uniform
 * attention", 1 is "all of it". Without the correction a uniform map over 6 tokens would already score
 * 0.44 on the diagonal.
 *
 * <ul>
 *   <li>{@code vertical}: column means {@code c_j = mean_i A_ij} are ranked; {@code w} is {@code c_1},
 *       plus {@code c_2} when {@code c_2 >= secondColumn}: the weight on the one or two most-attended
 *       columns (the "top columns"; {@code u = k / n} for {@code k} columns).
 *   <li>{@code verticalFocus}: of the cells that stand out in their row ({@code A_ij >= SALIENT *
 *       max_j A_ij}), the share that lies in the top columns. A column over a background that other
 *       cells rival (what a person labels heterogeneous) has a high {@code vertical} but a low focus.
 *   <li>{@code diagonal}: the band {@code |i - j| <= 1} outside the top columns. Per row, the band's
 *       share of the weight the top columns leave; its mean over rows is chance-corrected against rows
 *       uniform over the other columns of their own segment (so a block map is not diagonal); then
 *       multiplied by the mean weight the top columns leave. A faint band under a dominant column,
 *       invisible on the rendered map, scores near 0; a clear band beside a column scores as one.
 *   <li>{@code block} (pairs only, else 0): the weight a row keeps within its own segment, beyond
 *       what the distances it attends at explain: at each distance {@code d} the row's weight on
 *       {@code i - d} and {@code i + d} is compared with that weight spread evenly over the two cells
 *       (top columns left out), so a local head, whose near tokens share its segment, is not a block.
 *   <li>{@code heterogeneous}: {@code 1 - max(vertical, diagonal, block)}: what no simple pattern
 *       explains.
 * </ul>
 *
 * <p>The rule, first match wins:
 *
 * <ol>
 *   <li>{@code vertical >= vdVertical} and {@code diagonal >= vdDiagonal}: vertical+diagonal;
 *   <li>{@code vertical >= vertical} and {@code verticalFocus >= verticalFocus}: vertical;
 *   <li>{@code diagonal >= diagonal}: diagonal;
 *   <li>{@code block >= block}: block (a block map has no dominant column, so it comes after vertical);
 *   <li>otherwise heterogeneous.
 * </ol>
 *
 * <p>Confidence: with the margin {@code m(s, t) = (s - t) / (1 - t)} when {@code s >= t}, else {@code
 * (s - t) / t} (so {@code m} is in [-1, 1]), confidence is {@code 0.5 + 0.5 m} of the deciding score
 * (the smaller margin of the two for vertical+diagonal and for vertical); for heterogeneous it is
 * {@code 0.5 + 0.5} times the smallest distance below any rule that did not fire. 0.5 is on a
 * boundary, 1 a perfect example.
 *
 * @param secondColumn the column mean a second column needs to count as part of a vertical pattern
 * @param vertical the vertical score that makes a map vertical
 * @param verticalFocus the vertical focus a vertical map needs as well
 * @param diagonal the diagonal score that makes a map diagonal
 * @param vdVertical the vertical score needed, with {@code vdDiagonal}, for vertical+diagonal
 * @param vdDiagonal the diagonal score needed, with {@code vdVertical}, for vertical+diagonal
 * @param block the block score that makes a pair's map block
 */
public record Thresholds(
    double secondColumn,
    double vertical,
    double verticalFocus,
    double diagonal,
    double vdVertical,
    double vdDiagonal,
    double block) {

  /**
   * A cell "stands out" in its row at this fraction of the row's largest weight (for {@code
   * verticalFocus}). Fixed, not searched: about where a cell starts to show on a heatmap scaled to its
   * maximum.
   */
  public static final double SALIENT = 0.3;

  /**
   * The defaults: the best agreement with all 1,384 hand-labelled maps (the three sets, sets 1 and 2 with
   * the labels they were given again under the written definition; the consensus of two labellers and an
   * adjudicator; a grid search, ties to the first found, lowest values first; {@code secondColumn} kept at
   * 0.10). How well thresholds found this way do on inputs they never saw is measured by grouped
   * cross-validation, the search rerun on each fold's training inputs ({@code ClassifierEvaluationTest}).
   */
  public static final Thresholds DEFAULT = new Thresholds(0.10, 0.40, 0.20, 0.15, 0.30, 0.10, 0.20);

  public Thresholds {
    for (double t : new double[] {secondColumn, vertical, verticalFocus, diagonal, vdVertical, vdDiagonal, block}) {
      if (!(t > 0 && t < 1)) {
        throw new IllegalArgumentException("thresholds must lie strictly between 0 and 1: " + t);
      }
    }
  }

  /**
   * The category and its confidence for a map's scores ({@code block} is 0 for one sentence).
   *
   * @param v vertical
   * @param f vertical focus
   * @param d diagonal
   * @param b block
   */
  public Decision decide(double v, double f, double d, double b) {
    double mvd = Math.min(margin(v, vdVertical), margin(d, vdDiagonal));
    if (mvd >= 0) {
      return new Decision(HeadPattern.VERTICAL_DIAGONAL, confidence(mvd));
    }
    double mv = Math.min(margin(v, vertical), margin(f, verticalFocus));
    if (mv >= 0) {
      return new Decision(HeadPattern.VERTICAL, confidence(mv));
    }
    double md = margin(d, diagonal);
    if (md >= 0) {
      return new Decision(HeadPattern.DIAGONAL, confidence(md));
    }
    double mb = margin(b, block);
    if (mb >= 0) {
      return new Decision(HeadPattern.BLOCK, confidence(mb));
    }
    double below = Math.min(Math.min(-mvd, -mv), Math.min(-md, -mb));
    return new Decision(HeadPattern.HETEROGENEOUS, confidence(below));
  }

  /** A decision of {@link #decide}. */
  /**
   * @param category the likeliest category
   * @param confidence its confidence (the learned model: its probability)
   * @param runnerUp the second likeliest (learned model only; null for the rule, which ranks no other)
   * @param runnerUpConfidence its probability (0 for the rule)
   * @param uncertain whether the classifier is too unsure to name a category (learned model only:
   *     {@link LearnedRule#UNCERTAIN_BELOW})
   */
  public record Decision(HeadPattern category, double confidence, HeadPattern runnerUp, double runnerUpConfidence,
      boolean uncertain) {
    /** The rule's decision: one category, no runner-up, never uncertain. */
    public Decision(HeadPattern category, double confidence) {
      this(category, confidence, null, 0, false);
    }
  }

  static double margin(double s, double t) {
    return s >= t ? (s - t) / (1 - t) : (s - t) / t;
  }

  private static double confidence(double m) {
    return Math.max(0, Math.min(1, 0.5 + 0.5 * m));
  }
}
