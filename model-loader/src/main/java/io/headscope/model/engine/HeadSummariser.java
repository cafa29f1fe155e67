package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;

/**
 * What a run that keeps no full map keeps of each head's pattern ({@link Capture#summaries}), computed in
 * native memory while the layer runs and copied out small: a 22-layer, 32-head model at 2,048 tokens has
 * 704 maps of 4M cells (11.8 GB as float32); its summaries are 704 x (4 x 2,048) numbers and its
 * thumbnails 704 x 128 x 128.
 *
 * <p>Each batch row is summarised over its own real tokens (its {@code len x len} block of the padded
 * pattern), a few heads at a time in a scope of their own, so the temporaries stay a fraction of the
 * layer's pattern.
 */
final class HeadSummariser {
  /**
   * {@code p log p} is taken as {@code p log max(p, 1e-30)}: 0 for p = 0 (where {@code 0 log 0} is
   * NaN in float32), and for 0 < p < 1e-30 it differs from the true term by at most {@code 1e-30 x 69}
   * per cell, below 1e-25 nats per row at any length HeadScope runs.
   */
  static final float LOG_FLOOR = 1e-30f;
  /** Heads summarised together: 4 heads of 2,048 tokens are 64 MB per temporary. */
  private static final int CHUNK = 4;

  private HeadSummariser() {}

  /**
   * Per head and query row: the row's largest weight, its weight on the first token, its entropy in
   * nats, and per key the weight it receives summed over the real rows; (B, H, 4, T), zeros past each
   * row's length.
   */
  static Activation rows(NDArray pattern, int[] lengths) {
    long[] s = pattern.getShape().getShape(); // (B, H, T, T)
    int b = (int) s[0];
    int h = (int) s[1];
    int t = (int) s[2];
    float[] out = new float[b * h * 4 * t];
    for (int row = 0; row < b; row++) {
      int len = lengths[row];
      for (int h0 = 0; h0 < h; h0 += CHUNK) {
        int h1 = Math.min(h, h0 + CHUNK);
        try (NDManager chunk = pattern.getManager().newSubManager()) {
          NDArray p = pattern.get(new NDIndex(row + ", " + h0 + ":" + h1 + ", 0:" + len + ", 0:" + len)); // (c, len, len)
          p.attach(chunk); // every result below has p as its first operand and lands in chunk
          float[] max = p.max(new int[] {-1}).toFloatArray(); // (c, len)
          float[] first = p.get(new NDIndex(":, :, 0")).toFloatArray(); // (c, len)
          float[] entropy = p.maximum(Scalars.of(p, LOG_FLOOR)).log().muli(p).sum(new int[] {-1}).negi().toFloatArray(); // (c, len)
          float[] received = p.sum(new int[] {1}).toFloatArray(); // (c, len): over the query rows
          for (int c = 0; c < h1 - h0; c++) {
            int base = ((row * h + h0 + c) * 4) * t;
            System.arraycopy(max, c * len, out, base, len);
            System.arraycopy(first, c * len, out, base + t, len);
            System.arraycopy(entropy, c * len, out, base + 2 * t, len);
            System.arraycopy(received, c * len, out, base + 3 * t, len);
          }
        }
      }
    }
    return new Activation(out, new int[] {b, h, 4, t});
  }

  /**
   * Each head's map max-pooled to {@code g = min(len, side)} cells a side, with the blocks of the grid's
   * own pooling (the app's {@code Palette.pooled}): row i falls in block {@code floor(i g / len)}, and so
   * does column j. Max-pooling picks one of the map's own values per block, so a thumbnail holds exactly
   * the cells the grid would have drawn from the full map. (B, H, side, side), the top-left g x g filled.
   */
  static Activation thumbnails(NDArray pattern, int[] lengths, int side) {
    long[] s = pattern.getShape().getShape();
    int b = (int) s[0];
    int h = (int) s[1];
    float[] out = new float[b * h * side * side];
    for (int row = 0; row < b; row++) {
      int len = lengths[row];
      int g = Math.min(len, side);
      long[] index = blockIndex(len, g);
      int w = index.length / g;
      for (int h0 = 0; h0 < h; h0 += CHUNK) {
        int h1 = Math.min(h, h0 + CHUNK);
        int c = h1 - h0;
        try (NDManager chunk = pattern.getManager().newSubManager()) {
          NDArray p = pattern.get(new NDIndex(row + ", " + h0 + ":" + h1 + ", 0:" + len + ", 0:" + len)); // (c, len, len)
          p.attach(chunk);
          NDArray pick = chunk.create(index);
          // columns: each block's members side by side (short blocks repeat their last member), max over them
          NDArray cols = p.get(new NDIndex(":, :, {}", pick)).reshape(c, len, g, w).max(new int[] {-1}); // (c, len, g)
          NDArray rows = cols.transpose(0, 2, 1).get(new NDIndex(":, :, {}", pick)).reshape(c, g, g, w)
              .max(new int[] {-1}); // (c, g cols, g rows)
          float[] px = rows.transpose(0, 2, 1).toFloatArray(); // (c, g rows, g cols)
          for (int k = 0; k < c; k++) {
            int base = (row * h + h0 + k) * side * side;
            for (int r = 0; r < g; r++) {
              System.arraycopy(px, (k * g + r) * g, out, base + r * side, g);
            }
          }
        }
      }
    }
    return new Activation(out, new int[] {b, h, side, side});
  }

  /**
   * The members of each of the g blocks of {@code 0 .. len-1}, block k holding the i with {@code floor(i
   * g / len) = k}, each padded to the widest block by repeating its last member (which leaves a max as it
   * is): g x w indices, row-major.
   */
  static long[] blockIndex(int len, int g) {
    int[] start = new int[g + 1];
    java.util.Arrays.fill(start, len);
    for (int i = len - 1; i >= 0; i--) {
      start[(int) ((long) i * g / len)] = i;
    }
    int w = 0;
    for (int k = 0; k < g; k++) {
      w = Math.max(w, start[k + 1] - start[k]);
    }
    long[] index = new long[g * w];
    for (int k = 0; k < g; k++) {
      for (int m = 0; m < w; m++) {
        index[k * w + m] = Math.min(start[k] + m, start[k + 1] - 1);
      }
    }
    return index;
  }
}
