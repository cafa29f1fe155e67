package io.headscope.analysis.heads;

/**
 * The one place where the category rule and its thresholds live.
 *
 * <p>The scores (each in [0,1], computed by {@link HeadClassifier}):
 *
 * <ul>
 *   <li>{@code vertical}: column means {@code c_j = mean_i A_ij} are ranked; the score is {@code c_1},
 *       plus {@code c_2} when {@code c_2 >= secondColumn}, i.e. the mean weight on the one or two
 *       most-attended columns.
 *   <li>{@code diagonal}: the mean over rows of {@code A_{i,i-1} + A_ii + A_{i,i+1}}; the dominant
 *       offset is the one of the three with the most weight.
 *   <li>{@code block} (pairs only, else 0): {@code w} = the mean weight a row keeps within its own
 *       segment ({@code [CLS] a [SEP]} or {@code b [SEP]}); {@code e = (n_a^2 + n_b^2) / n^2} is what a
 *       uniform map keeps; the score is {@code max(0, (w - e) / (1 - e))}. Chance-corrected because a
 *       uniform map already keeps about half.
 *   <li>{@code heterogeneous}: {@code 1 - max(vertical, diagonal, block)}, the weight no simple pattern
 *       explains.
 * </ul>
 *
 * <p>The rule, first match wins:
 *
 * <ol>
 *   <li>{@code vertical >= vdVertical} and {@code diagonal >= vdDiagonal}: vertical+diagonal;
 *   <li>{@code vertical >= vertical}: vertical;
 *   <li>{@code diagonal >= diagonal}: diagonal;
 *   <li>{@code block >= block}: block (a block map has no dominant column, so it comes after vertical);
 *   <li>otherwise heterogeneous.
 * </ol>
 *
 * <p>Confidence: with the margin {@code m(s, t) = (s - t) / (1 - t)} when {@code s >= t}, else {@code
 * (s - t) / t} (so {@code m} is in [-1, 1]), confidence is {@code 0.5 + 0.5 m} of the deciding score
 * (the smaller margin of the two for vertical+diagonal); for heterogeneous it is {@code 0.5 + 0.5} times
 * the smallest distance below any rule that did not fire. 0.5 is on a boundary, 1 a perfect example.
 *
 * @param secondColumn the column mean a second column needs to count as part of a vertical pattern
 * @param vertical the vertical score that makes a map vertical
 * @param diagonal the diagonal score that makes a map diagonal
 * @param vdVertical the vertical score needed, with {@code vdDiagonal}, for vertical+diagonal
 * @param vdDiagonal the diagonal score needed, with {@code vdVertical}, for vertical+diagonal
 * @param block the block score that makes a pair's map block
 */
public record Thresholds(
    double secondColumn,
    double vertical,
    double diagonal,
    double vdVertical,
    double vdDiagonal,
    double block) {

  /** The defaults (see the agreement test for how they were chosen). */
  public static final Thresholds DEFAULT = new Thresholds(0.10, 0.50, 0.50, 0.30, 0.30, 0.50);

  public Thresholds {
    for (double t : new double[] {secondColumn, vertical, diagonal, vdVertical, vdDiagonal, block}) {
      if (!(t > 0 && t < 1)) {
        throw new IllegalArgumentException("thresholds must lie strictly between 0 and 1: " + t);
      }
    }
  }

  /** The category and its confidence for a map's scores ({@code block} is 0 for one sentence). */
  public Decision decide(double v, double d, double b) {
    double mvd = Math.min(margin(v, vdVertical), margin(d, vdDiagonal));
    if (mvd >= 0) {
      return new Decision(HeadPattern.VERTICAL_DIAGONAL, confidence(mvd));
    }
    double mv = margin(v, vertical);
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
  public record Decision(HeadPattern category, double confidence) {}

  static double margin(double s, double t) {
    return s >= t ? (s - t) / (1 - t) : (s - t) / t;
  }

  private static double confidence(double m) {
    return Math.max(0, Math.min(1, 0.5 + 0.5 * m));
  }
}
