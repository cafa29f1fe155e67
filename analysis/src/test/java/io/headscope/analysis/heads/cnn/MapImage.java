package io.headscope.analysis.heads.cnn;

import io.headscope.model.core.HeadScopeException;

/**
 * An attention map resized to a fixed {@link #SIZE} x {@link #SIZE} image for the CNN (issue 32).
 *
 * <p>Why 32: the longest inputs (512 tokens) then give blocks of exactly 16 x 16 positions, so a
 * one-token diagonal falls in the diagonal cells and nowhere else, and every map of the shortest bucket
 * (at most 32 tokens) is kept without loss (each token one or more whole cells). 48 or 64 would keep
 * more detail of long maps, but at 2.25 or 4 times the compute of every training step, and the
 * categories are coarse shapes (a line, a column, two squares) that 32 cells show.
 *
 * <p>Cell {@code (r, c)} covers the query positions {@code [r n / S, max(r n / S + 1, (r + 1) n / S))}
 * and the same for keys (integer division): for {@code n >= S} a block of positions, for
 * {@code n < S} one position repeated over neighbouring cells (nearest neighbour). Channels:
 *
 * <ol>
 *   <li>{@link #MAX}: the largest weight in the block. Maximum pooling, not the mean, so that a line
 *       one position wide (the diagonal, a column on [SEP]) stays as bright at 512 tokens as at 20:
 *       the mean would dilute it 16-fold.
 *   <li>{@link #MASS}: the block's weights summed over its keys and averaged over its queries: the share
 *       of a query's attention that lands in the cell's keys. It tells a cell full of weight (a block,
 *       a wide column) from one bright position in an empty cell, which the maximum cannot, and it does
 *       not shrink with the length the way the plain mean does.
 *   <li>{@link #SAME_SEGMENT}: the share of the block's (query, key) pairs in the same segment: all ones
 *       for a single sentence, two squares for a pair. The block category is defined by the segments,
 *       which the weights alone show only when the head follows them.
 * </ol>
 */
public final class MapImage {
  public static final int SIZE = 32;
  public static final int CHANNELS = 3;
  public static final int MAX = 0;
  public static final int MASS = 1;
  public static final int SAME_SEGMENT = 2;

  private MapImage() {}

  /**
   * @param map {@code [query][key]}, square
   * @param segments token type per position (null for a single sentence: all in one segment)
   * @return {@code [channel][row][column]}
   */
  public static float[][][] of(float[][] map, long[] segments) {
    int n = map.length;
    if (n == 0) {
      throw new HeadScopeException("An attention map with no token cannot be resized.");
    }
    if (segments != null && segments.length != n) {
      throw new HeadScopeException("The map has " + n + " tokens but " + segments.length + " segment ids.");
    }
    float[][][] out = new float[CHANNELS][SIZE][SIZE];
    for (int r = 0; r < SIZE; r++) {
      int r0 = lo(r, n);
      int r1 = hi(r, n);
      for (int c = 0; c < SIZE; c++) {
        int c0 = lo(c, n);
        int c1 = hi(c, n);
        float max = 0;
        double sum = 0;
        int same = 0;
        for (int i = r0; i < r1; i++) {
          float[] row = map[i];
          for (int j = c0; j < c1; j++) {
            float v = row[j];
            if (v > max) {
              max = v;
            }
            sum += v;
            if (segments == null || segments[i] == segments[j]) {
              same++;
            }
          }
        }
        int rows = r1 - r0;
        out[MAX][r][c] = max;
        out[MASS][r][c] = (float) (sum / rows);
        out[SAME_SEGMENT][r][c] = same / (float) (rows * (c1 - c0));
      }
    }
    return out;
  }

  /**
   * The three channels of {@link #of(float[][], long[])} and a fourth: the share of the cell's keys that
   * are marked (e.g. [CLS], [SEP] and punctuation), the same down every column. A vertical head's column
   * is on such a token; the weights alone do not say which token a column is.
   *
   * @param marked per position, whether it is a marked token
   */
  public static float[][][] of(float[][] map, long[] segments, boolean[] marked) {
    int n = map.length;
    if (marked.length != n) {
      throw new HeadScopeException("The map has " + n + " tokens but " + marked.length + " marks.");
    }
    float[][][] three = of(map, segments);
    float[][][] out = new float[CHANNELS + 1][][];
    System.arraycopy(three, 0, out, 0, CHANNELS);
    out[CHANNELS] = new float[SIZE][SIZE];
    for (int c = 0; c < SIZE; c++) {
      int hits = 0;
      for (int j = lo(c, n); j < hi(c, n); j++) {
        hits += marked[j] ? 1 : 0;
      }
      float share = hits / (float) (hi(c, n) - lo(c, n));
      for (int r = 0; r < SIZE; r++) {
        out[CHANNELS][r][c] = share;
      }
    }
    return out;
  }

  /** The marks of {@link #of(float[][], long[], boolean[])}: [CLS], [SEP] and tokens of punctuation only. */
  public static boolean[] marked(java.util.List<String> tokens) {
    boolean[] m = new boolean[tokens.size()];
    for (int i = 0; i < m.length; i++) {
      String t = tokens.get(i);
      m[i] = t.equals("[CLS]") || t.equals("[SEP]") || t.chars().allMatch(ch -> !Character.isLetterOrDigit(ch));
    }
    return m;
  }

  /** First position of cell {@code k}'s block. */
  static int lo(int k, int n) {
    return k * n / SIZE;
  }

  /** One past the last position of cell {@code k}'s block: at least one position. */
  static int hi(int k, int n) {
    return Math.max(lo(k, n) + 1, (k + 1) * n / SIZE);
  }
}
