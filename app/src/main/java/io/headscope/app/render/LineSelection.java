package io.headscope.app.render;

import java.util.ArrayList;
import java.util.List;

/**
 * Which lines the BertViz-style line drawing draws. Every cell of a 512-token map would be 262,144
 * lines (the drawing that froze the window); a person reads only the strong ones. So for each query
 * token the {@code k} strongest keys are kept, and only those at or above {@link #MIN_SHARE} of the
 * map's maximum; {@code k} shrinks as inputs grow and when a whole layer is overlaid. Pure data: the
 * window and the figure renderer draw the same lines.
 */
public final class LineSelection {
  /** A line is drawn only at this share of its map's maximum or more (BertViz hides faint lines too). */
  public static final double MIN_SHARE = 0.02;

  /** Paul Tol's colour-blind-safe qualitative colours (muted, then light), one per head of a layer. */
  private static final int[] HEAD_COLORS = {0x332288, 0x88CCEE, 0x44AA99, 0x117733, 0x999933, 0xDDCC77,
      0xCC6677, 0x882255, 0xAA4499, 0xEE8866, 0x77AADD, 0x444444};

  private LineSelection() {}

  /**
   * A line from query {@code query} to key {@code key} of head number {@code head} in the list
   * (0 for a single head), its value divided by its map's maximum.
   */
  public record Line(int head, int query, int key, double share) {}

  /** Keys kept per query token: all the readable ones for short inputs, fewer for long ones and overlays. */
  public static int perQuery(int tokens, int heads) {
    int k = tokens <= 64 ? 8 : tokens <= 192 ? 4 : 2;
    return heads > 1 ? Math.max(1, k / 2) : k;
  }

  /** The strongest {@code k} keys of each query row of each map, at or above {@link #MIN_SHARE} of its maximum. */
  public static List<Line> strongest(List<HeadMatrix> maps, int k) {
    List<Line> out = new ArrayList<>();
    for (int h = 0; h < maps.size(); h++) {
      HeadMatrix m = maps.get(h);
      double max = m.max();
      if (max <= 0) {
        continue;
      }
      int[] best = new int[k];
      for (int i = 0; i < m.rows(); i++) {
        float[] row = m.values()[i];
        int found = 0;
        // insertion into a small sorted array: k is at most 8, rows up to 512 long
        for (int j = 0; j < row.length; j++) {
          if (row[j] < MIN_SHARE * max || (found == k && row[j] <= row[best[k - 1]])) {
            continue;
          }
          int at = found < k ? found++ : k - 1;
          while (at > 0 && row[best[at - 1]] < row[j]) {
            best[at] = best[at - 1];
            at--;
          }
          best[at] = j;
        }
        for (int r = 0; r < found; r++) {
          out.add(new Line(h, i, best[r], row[best[r]] / max));
        }
      }
    }
    return out;
  }

  /** 0xRRGGBB of the {@code head}-th head of a layer in an overlay. */
  public static int headColor(int head) {
    return HEAD_COLORS[head % HEAD_COLORS.length];
  }
}
