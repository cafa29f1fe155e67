package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import java.util.function.Consumer;

/**
 * What a run that keeps no full map keeps of each head's pattern ({@link Capture#summaries}), computed in
 * native memory while the layer runs and copied out small: a 22-layer, 32-head model at 2,048 tokens has
 * 704 maps of 4M cells (11.8 GB as float32); its summaries are 704 x (4 x 2,048) numbers and its
 * thumbnails 704 x 128 x 128.
 *
 * <p>One summariser reads one layer's pattern a few heads at a time ({@link Hooks.PatternChunks}: the
 * engine computes a summarised layer's attention in chunks of heads and never holds its whole pattern), and
 * each batch row over its own real tokens (its {@code len x len} block). Per chunk it makes two passes over
 * the pattern and two over the scores, none with a transcendental per cell (measured in docs/PERFORMANCE.md):
 *
 * <ul>
 *   <li>the thumbnail's columns: each row's maximum over each column block, (c, len, g); the row's largest
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
  public void accept(NDArray scores, NDArray pattern, int h0, boolean last) {
    long[] s = pattern.getShape().getShape(); // (B, c, T, T)
    if (h0 == 0) {
      b = (int) s[0];
      t = (int) s[2];
      rows = rowsOut == null ? null : new float[b * heads * 4 * t];
      thumbs = thumbnailsOut == null ? null : new float[b * heads * side * side];
    }
    int c = (int) s[1];
    for (int row = 0; row < b; row++) {
      try (NDManager scope = pattern.getManager().newSubManager()) {
        summarise(scope, scores, pattern, row, h0, c);
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

  private void summarise(NDManager scope, NDArray scores, NDArray pattern, int row, int h0, int c) {
    int len = lengths[row];
    NDIndex block = new NDIndex(row + ", :, 0:" + len + ", 0:" + len);
    NDArray p = pattern.get(block); // (c, len, len)
    p.attach(scope); // every result below has p (or s) as its first operand and lands in scope
    int g = side > 0 ? Math.min(len, side) : Math.min(len, 128);
    NDArray cols = blockMax(p, len, g, 2); // (c, len, g): each row's max over each column block
    float[] max = cols.max(new int[] {-1}).toFloatArray(); // (c, len)
    if (thumbs != null) {
      float[] px = blockMax(cols, len, g, 1).toFloatArray(); // (c, g, g)
      for (int k = 0; k < c; k++) {
        int base = (row * heads + h0 + k) * side * side;
        for (int r = 0; r < g; r++) {
          System.arraycopy(px, (k * g + r) * g, thumbs, base + r * side, g);
        }
      }
    }
    if (rows == null) {
      return;
    }
    float[] first = p.get(new NDIndex(":, :, 0")).toFloatArray(); // (c, len)
    float[] received = p.sum(new int[] {1}).toFloatArray(); // (c, len): over the query rows
    float[] entropy;
    if (scores != null) {
      NDArray sc = scores.get(block);
      sc.attach(scope);
      float[] top = sc.max(new int[] {-1}).toFloatArray(); // (c, len): m
      float[] dot = p.mul(sc).sum(new int[] {-1}).toFloatArray(); // (c, len): sum_j p_j s_j
      entropy = new float[c * len];
      for (int i = 0; i < entropy.length; i++) {
        entropy[i] = (float) ((double) top[i] - Math.log(max[i]) - dot[i]);
      }
    } else {
      entropy = p.maximum(Scalars.of(p, LOG_FLOOR)).log().muli(p).sum(new int[] {-1}).negi().toFloatArray();
    }
    for (int k = 0; k < c; k++) {
      int base = ((row * heads + h0 + k) * 4) * t;
      System.arraycopy(max, k * len, rows, base, len);
      System.arraycopy(first, k * len, rows, base + t, len);
      System.arraycopy(entropy, k * len, rows, base + 2 * t, len);
      System.arraycopy(received, k * len, rows, base + 3 * t, len);
    }
  }

  /**
   * The maximum of {@code a} (c, ., .) over each of the g blocks of its axis {@code axis} (1 or 2, of length
   * len), block k holding the i with {@code floor(i g / len) = k}: the axis becomes g long. Where g divides
   * len the blocks are equal and this is one strided reduction; else one reduction per block.
   */
  static NDArray blockMax(NDArray a, int len, int g, int axis) {
    long[] s = a.getShape().getShape();
    if (len % g == 0) {
      int w = len / g;
      return axis == 2 ? a.reshape(s[0], s[1], g, w).max(new int[] {3}) : a.reshape(s[0], g, w, s[2]).max(new int[] {2});
    }
    int[] start = blockStarts(len, g);
    NDList parts = new NDList(g);
    for (int k = 0; k < g; k++) {
      String range = start[k] + ":" + start[k + 1];
      parts.add(a.get(new NDIndex(axis == 2 ? ":, :, " + range : ":, " + range)).max(new int[] {axis}));
    }
    return NDArrays.stack(parts, axis);
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
