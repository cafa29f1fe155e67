package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.pooling.Pool;
import java.util.function.Consumer;

/**
 * What a run that keeps no full map keeps of each head's pattern ({@link Capture#summaries}), computed in
 * native memory while the layer runs and copied out small: a 22-layer, 32-head model at 2,048 tokens has
 * 704 maps of 4M cells (11.8 GB as float32); its summaries are 704 x (4 x 2,048) numbers and its
 * thumbnails 704 x 128 x 128.
 *
 * <p>One summariser reads one layer's pattern a few heads and query rows at a time ({@link Hooks.PatternChunks}:
 * the engine computes a summarised layer's attention in chunks and never holds its whole pattern; a causal
 * layer's chunk of rows stops at its last query's key, the keys after it having weight 0 in every row of the
 * chunk), and each batch row over its own real tokens (its {@code len x len} block). A row's numbers are
 * complete in its chunk; a thumbnail block split between chunks of rows takes the max of both (exact), and a
 * key's received weight is summed chunk by chunk. Per chunk it makes two passes over the pattern and two over
 * the scores, none with a transcendental per cell (measured in docs/PERFORMANCE.md):
 *
 * <ul>
 *   <li>the thumbnail's columns: each row's maximum over each column block, (c, rows, g); the row's largest
 *       weight is their maximum and the thumbnail their maximum over each row block (a max of maxima is the
 *       max, exactly);
 *   <li>the weight each key receives, the sum over the query rows (as before);
 *   <li>the entropy from the scores s the softmax read: with {@code lse = log sum_j e^(s_j)}, {@code log p_j =
 *       s_j - lse} and {@code lse = m - log p_max} for {@code m = max_j s_j} (the key with the largest score
 *       has the largest weight), so {@code H = -sum_j p_j log p_j = m - log p_max - sum_j p_j s_j}: a product
 *       and a sum per cell and one log per row, instead of a log per cell. Its distance from the float32 sum
 *       of {@code p log p} is bounded in {@code AttentionOnDemandTest}. Where the pattern read is not the scores'
 *       softmax (a capture after head masks), it is {@code -sum_j p log max(p, 1e-30)} per cell as before.
 * </ul>
 */
final class HeadSummariser implements Hooks.PatternChunks {
  /**
   * {@code p log p} is taken as {@code p log max(p, 1e-30)} where it is computed per cell: 0 for p = 0 (where
   * {@code 0 log 0} is NaN in float32), and for 0 < p < 1e-30 it differs from the true term by at most {@code
   * 1e-30 x 69} per cell, below 1e-25 nats per row at any length HeadScope runs.
   */
  static final float LOG_FLOOR = 1e-30f;

  private final int heads;
  private final int[] lengths;
  private final int side;
  private final boolean before;
  private final Consumer<Activation> rowsOut;
  private final Consumer<Activation> thumbnailsOut;
  private float[] rows;
  private float[] thumbs;
  private int b;
  private int t;

  /**
   * @param heads the layer's query heads
   * @param lengths each batch row's real length
   * @param side the thumbnails' side (0 for none)
   * @param before whether it reads the pattern before the interventions at {@code hook_pattern}
   * @param rowsOut takes the per-row summaries, (B, H, 4, T), when the layer's last chunk is read (null: not asked)
   * @param thumbnailsOut takes the thumbnails, (B, H, side, side) (null: not asked)
   */
  HeadSummariser(int heads, int[] lengths, int side, boolean before, Consumer<Activation> rowsOut,
      Consumer<Activation> thumbnailsOut) {
    this.heads = heads;
    this.lengths = lengths.clone();
    this.side = side;
    this.before = before;
    this.rowsOut = rowsOut;
    this.thumbnailsOut = thumbnailsOut;
  }

  @Override
  public boolean beforeInterventions() {
    return before;
  }

  @Override
  public void accept(NDArray scores, NDArray pattern, int h0, int r0, int width, boolean last) {
    long[] s = pattern.getShape().getShape(); // (B, c, R, K)
    if (h0 == 0 && r0 == 0) {
      b = (int) s[0];
      t = width;
      rows = rowsOut == null ? null : new float[b * heads * 4 * t];
      thumbs = thumbnailsOut == null ? null : new float[b * heads * side * side];
    }
    int c = (int) s[1];
    for (int row = 0; row < b; row++) {
      int len = lengths[row];
      int r1 = Math.min((int) (r0 + s[2]), len);
      if (r1 <= r0) {
        continue; // this chunk holds only padding rows of this input
      }
      try (NDManager scope = pattern.getManager().newSubManager()) {
        summarise(scope, scores, pattern, row, h0, c, r0, r1, Math.min((int) s[3], len));
      }
    }
    if (last) {
      if (rowsOut != null) {
        rowsOut.accept(new Activation(rows, new int[] {b, heads, 4, t}));
      }
      if (thumbnailsOut != null) {
        thumbnailsOut.accept(new Activation(thumbs, new int[] {b, heads, side, side}));
      }
    }
  }

  /**
   * Query rows {@code r0 .. r1 - 1} of batch row {@code row} over its first {@code keys} keys: every key from
   * {@code keys} to the input's length has weight 0 in these rows (the causal mask), so a row's maximum, a
   * block's maximum and a column's sum over these rows are those of the whole row.
   */
  private void summarise(NDManager scope, NDArray scores, NDArray pattern, int row, int h0, int c, int r0, int r1,
      int keys) {
    int len = lengths[row];
    int nr = r1 - r0;
    NDIndex block = new NDIndex(row + ", :, 0:" + nr + ", 0:" + keys);
    NDArray p = pattern.get(block); // (c, nr, keys)
    p.attach(scope); // every result below has p (or s) as its first operand and lands in scope
    int g = side > 0 ? Math.min(len, side) : Math.min(len, 128);
    int[] start = blockStarts(len, g);
    NDArray cols = blockMax(p, start, 0, keys, 2); // (c, nr, gk): each row's max over each column block present
    float[] max = cols.max(new int[] {-1}).toFloatArray(); // (c, nr)
    if (thumbs != null) {
      // the row blocks that rows r0 .. r1 - 1 meet; a block split between two chunks takes the max of both
      int gr0 = (int) ((long) r0 * g / len);
      int gr1 = (int) ((long) (r1 - 1) * g / len) + 1;
      int gk = (int) cols.getShape().get(2);
      float[] px = blockMax(cols, start, r0, r1, 1).toFloatArray(); // (c, gr1 - gr0, gk)
      for (int k = 0; k < c; k++) {
        int base = (row * heads + h0 + k) * side * side;
        for (int r = 0; r < gr1 - gr0; r++) {
          for (int j = 0; j < gk; j++) {
            int at = base + (gr0 + r) * side + j;
            thumbs[at] = Math.max(thumbs[at], px[(k * (gr1 - gr0) + r) * gk + j]);
          }
        }
      }
    }
    if (rows == null) {
      return;
    }
    float[] first = p.get(new NDIndex(":, :, 0")).toFloatArray(); // (c, nr)
    float[] received = p.sum(new int[] {1}).toFloatArray(); // (c, keys): over these query rows
    float[] entropy;
    if (scores != null) {
      NDArray sc = scores.get(block);
      sc.attach(scope);
      float[] top = rowMax(sc, start, keys).toFloatArray(); // (c, nr): m
      float[] dot = p.mul(sc).sum(new int[] {-1}).toFloatArray(); // (c, nr): sum_j p_j s_j
      entropy = new float[c * nr];
      for (int i = 0; i < entropy.length; i++) {
        entropy[i] = (float) ((double) top[i] - Math.log(max[i]) - dot[i]);
      }
    } else {
      entropy = p.maximum(Scalars.of(p, LOG_FLOOR)).log().muli(p).sum(new int[] {-1}).negi().toFloatArray();
    }
    for (int k = 0; k < c; k++) {
      int base = ((row * heads + h0 + k) * 4) * t;
      System.arraycopy(max, k * nr, rows, base + r0, nr);
      System.arraycopy(first, k * nr, rows, base + t + r0, nr);
      System.arraycopy(entropy, k * nr, rows, base + 2 * t + r0, nr);
      // each column's sum, chunk of rows by chunk of rows in order (the first chunk's sum adds to 0: itself)
      for (int j = 0; j < keys; j++) {
        rows[base + 3 * t + j] += received[k * keys + j];
      }
    }
  }

  /**
   * The maximum of {@code a} (c, ., .) over each block of its axis {@code axis} (1 or 2) that meets {@code lo ..
   * hi - 1}, the blocks being those of {@link #blockStarts} (block k holds the i with {@code floor(i g / len) = k})
   * and the array's axis holding indices {@code lo .. hi - 1} only: the axis becomes as long as the number of
   * blocks met. Where the blocks are equal and {@code lo} and {@code hi} fall on their edges, one max pool
   * (axis 2) or one strided reduction (axis 1); else one reduction per block.
   */
  static NDArray blockMax(NDArray a, int[] start, int lo, int hi, int axis) {
    long[] s = a.getShape().getShape();
    int g = start.length - 1;
    int len = start[g];
    int w = len / g;
    if (onBlockEdges(start, lo, hi)) {
      if (axis == 2) {
        // a max pool of width w along the last axis (each row's blocks of keys): the same maxima as a reduction over a
        // (c, R, n, w) view, exactly, but libtorch's pool is 6x faster than its max over a short inner axis (0.19 ms
        // against 1.2 ms for one head's 512 x 2,048 chunk; docs/PERFORMANCE.md)
        Shape width = new Shape(w);
        return Pool.maxPool1d(a, width, width, new Shape(0), false);
      }
      return a.reshape(s[0], (hi - lo) / w, w, s[2]).max(new int[] {2});
    }
    int k0 = (int) ((long) lo * g / len);
    int k1 = (int) ((long) (hi - 1) * g / len) + 1;
    NDList parts = new NDList(k1 - k0);
    for (int k = k0; k < k1; k++) {
      String range = (Math.max(start[k], lo) - lo) + ":" + (Math.min(start[k + 1], hi) - lo);
      parts.add(a.get(new NDIndex(axis == 2 ? ":, :, " + range : ":, " + range)).max(new int[] {axis}));
    }
    return NDArrays.stack(parts, axis);
  }

  /**
   * Each row's largest score, (c, nr), from (c, nr, keys): the max of its column blocks' maxima where one max pool
   * gives those ({@link #blockMax}'s fast case; the max of maxima is the max, exactly), which reads the scores at
   * about half the cost of libtorch's max over the last axis (0.26 against 0.53 ms for a 512 x 2,048 chunk,
   * docs/PERFORMANCE.md); else that max.
   */
  static NDArray rowMax(NDArray s, int[] start, int keys) {
    return onBlockEdges(start, 0, keys) ? blockMax(s, start, 0, keys, 2).max(new int[] {-1}) : s.max(new int[] {-1});
  }

  /** Whether the blocks are all of one width and {@code lo .. hi - 1} starts and ends on their edges (or at len). */
  private static boolean onBlockEdges(int[] start, int lo, int hi) {
    int g = start.length - 1;
    int len = start[g];
    int w = len / g;
    return len % g == 0 && lo % w == 0 && (hi % w == 0 || hi == len);
  }

  /** Where each of the g blocks of {@code 0 .. len-1} starts (block k: the i with floor(i g / len) = k), and len. */
  static int[] blockStarts(int len, int g) {
    int[] start = new int[g + 1];
    java.util.Arrays.fill(start, len);
    for (int i = len - 1; i >= 0; i--) {
      start[(int) ((long) i * g / len)] = i;
    }
    return start;
  }
}
