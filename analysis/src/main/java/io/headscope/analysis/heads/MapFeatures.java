package io.headscope.analysis.heads;

import java.util.List;

/**
 * What the learned classifier reads off one map: the interpretable scores, the head's statistics, a
 * few features of where each row's largest weight falls (the eye reads a map by its darkest cells), and
 * the row shares the labelling guidelines decide by ({@code labels/GUIDELINES-3.md}): the share of rows
 * with at least half their weight on the band (B) or on the stripes (S). Definitions in METHODS.md
 * ("Kovaleva pattern categories").
 *
 * <p>Every feature means the same at every length: shares of rows or of a row's weight, or scores
 * corrected for what a uniform map would give; none is a sum that shrinks as 1/n, and the length itself
 * is not a feature (a model trained on 120-token maps extrapolated it wildly at 512). The band is
 * offsets -1..+1 in positions at every length, as the guidelines say why.
 *
 * @param values in the order of {@link #NAMES}
 */
public record MapFeatures(double[] values) {

  /** The feature names, as the shipped model's JSON lists them. */
  public static final List<String> NAMES = List.of(
      "vertical", "vertical_focus", "diagonal", "block",
      "entropy_ratio", "previous", "next", "self", "cls", "sep", "punct",
      "argmax_in_top_columns", "argmax_in_band", "top_column_mean", "second_column_mean",
      "pair", "rows_on_band", "rows_on_stripes", "band_weight", "stripe_weight", "rows_on_specials",
      "rows_in_own_segment", "near_weight", "rows_on_stripe_set", "stripe_set_size");

  /** The stripe set holds at most this many columns, each with at least {@link #STRIPE_SET_SHARE} of the top one's weight. */
  static final int STRIPE_SET_MAX = 4;
  static final double STRIPE_SET_SHARE = 0.5;

  /** A row is "on" the band or the stripes with at least this share of its weight (GUIDELINES-3.md). */
  static final double ROW_ON = 0.5;

  public MapFeatures {
    if (values.length != NAMES.size()) {
      throw new IllegalArgumentException(values.length + " features for " + NAMES.size() + " names");
    }
  }

  /** By value (a record compares arrays by identity), so equal maps give equal scores. */
  @Override
  public boolean equals(Object o) {
    return o instanceof MapFeatures f && java.util.Arrays.equals(values, f.values);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "MapFeatures" + java.util.Arrays.toString(values);
  }

  /**
   * @param rowArgmax each row's most attended key (the first on a tie)
   * @param top which keys are the map's top columns
   * @param topMean the top column's mean weight
   * @param secondMean the second most attended column's mean weight (0 for one token)
   * @param map {@code [query][key]}, rows summing to 1
   * @param special whether each key is [CLS] or [SEP] (or the family's equivalents)
   * @param segments each token's segment
   * @param colMean each key's mean weight over the rows
   */
  static MapFeatures of(double vertical, double focus, double diagonal, double block, HeadStats stats,
      int[] rowArgmax, boolean[] top, boolean pair, double topMean, double secondMean, float[][] map,
      boolean[] special, long[] segments, double[] colMean) {
    int n = rowArgmax.length;
    int inTop = 0;
    int inBand = 0;
    for (int i = 0; i < n; i++) {
      int j = rowArgmax[i];
      if (top[j]) {
        inTop++;
      } else if (Math.abs(j - i) <= 1) {
        inBand++;
      }
    }
    double logN = Math.log(n);
    boolean[] stripeSet = stripeSet(colMean);
    Rows r = rows(map, top, stripeSet, special, segments, pair);
    return new MapFeatures(new double[] {
        vertical, focus, diagonal, block,
        n > 1 ? stats.entropy() / logN : 0, // entropy over its maximum, so lengths compare
        stats.previous(), stats.next(), stats.self(), stats.cls(), stats.sep(), stats.punct(),
        inTop / (double) n, inBand / (double) n, topMean, secondMean,
        pair ? 1 : 0, r.onBand, r.onStripes, r.bandWeight, r.stripeWeight, r.onSpecials, r.inOwnSegment,
        r.nearWeight, r.onStripeSet, r.stripeSetSize});
  }

  /**
   * The columns a labeller reads as "the stripes" when more than two are dark: the most attended column
   * and each next one, in order of mean weight, holding at least half the top column's, up to
   * {@link #STRIPE_SET_MAX} (a pair's [CLS] and two [SEP]s with a final "."; the guidelines let them count
   * together). Twenty-five faint "." columns of a long text are not a stripe set: the top four hold only
   * part of each row.
   */
  static boolean[] stripeSet(double[] colMean) {
    int n = colMean.length;
    boolean[] set = new boolean[n];
    double top = 0;
    for (int k = 0; k < Math.min(STRIPE_SET_MAX, n); k++) {
      int next = -1; // the heaviest column not yet taken, the first key on a tie
      for (int j = 0; j < n; j++) {
        if (!set[j] && (next < 0 || colMean[j] > colMean[next])) {
          next = j;
        }
      }
      if (k == 0) {
        top = colMean[next];
      } else if (!(colMean[next] >= STRIPE_SET_SHARE * top)) {
        break;
      }
      set[next] = true;
    }
    return set;
  }


  /** The row shares, each over the map's n rows. */
  private record Rows(double onBand, double onStripes, double bandWeight, double stripeWeight, double onSpecials,
      double inOwnSegment, double nearWeight, double onStripeSet, double stripeSetSize) {}

  /**
   * Per row: its weight on the band ({@code |i-j| <= 1}; stripe cells on the band count as band, as the
   * guidelines say), on the stripes (the top columns off the band), on [CLS]/[SEP], within 2-3 positions
   * (a broad local smear, which the guidelines call heterogeneous, not diagonal), and, for a pair, in its
   * own segment off the stripes and the band (a block row keeps about two thirds there), and on the stripe
   * set off the band.
   */
  private static Rows rows(float[][] map, boolean[] top, boolean[] stripeSet, boolean[] special, long[] segments,
      boolean pair) {
    int n = map.length;
    int onSet = 0;
    int onBand = 0;
    int onStripes = 0;
    int onSpecials = 0;
    int inOwn = 0;
    double bandSum = 0;
    double stripeSum = 0;
    double nearSum = 0;
    for (int i = 0; i < n; i++) {
      float[] row = map[i];
      double band = 0;
      double stripes = 0;
      double specials = 0;
      double near = 0;
      double own = 0;
      double set = 0;
      for (int j = 0; j < n; j++) {
        double a = row[j];
        int d = Math.abs(i - j);
        if (d > 1 && stripeSet[j]) {
          set += a;
        }
        if (d <= 1) {
          band += a;
        } else if (top[j]) {
          stripes += a;
        } else {
          if (d <= 3) {
            near += a;
          }
          if (segments[j] == segments[i]) {
            own += a;
          }
        }
        if (special[j]) {
          specials += a;
        }
      }
      onBand += band >= ROW_ON ? 1 : 0;
      onStripes += stripes >= ROW_ON ? 1 : 0;
      onSpecials += specials >= ROW_ON ? 1 : 0;
      inOwn += pair && own >= ROW_ON ? 1 : 0;
      onSet += set >= ROW_ON ? 1 : 0;
      bandSum += band;
      stripeSum += stripes;
      nearSum += near;
    }
    int setSize = 0;
    for (boolean b : stripeSet) {
      setSize += b ? 1 : 0;
    }
    return new Rows(onBand / (double) n, onStripes / (double) n, bandSum / n, stripeSum / n, onSpecials / (double) n,
        inOwn / (double) n, nearSum / n, onSet / (double) n, setSize);
  }
}
