package io.headscope.model.engine;

/**
 * Every head's own weight matrices as plain Java, in the row-vector convention TransformerLens writes
 * ({@code q = x W_Q}, a head's output {@code z W_O}), without biases: what composition scores read.
 *
 * <p>{@code q[l]}, {@code k[l]}, {@code v[l]} hold layer {@code l}'s heads as (H, d, dh), row-major;
 * {@code o[l]} as (H, dh, d). Head {@code h}'s {@code W_Q} is the transpose of rows {@code h dh .. (h+1) dh}
 * of the checkpoint's (out, in) query weight; its {@code W_O} the transpose of the output weight's columns
 * {@code h dh .. (h+1) dh}.
 */
public record HeadWeights(int layers, int heads, int hidden, int headSize, float[][] q, float[][] k, float[][] v,
    float[][] o) {

  public HeadWeights {
    long size = (long) heads * hidden * headSize;
    for (float[][] m : new float[][][] {q, k, v, o}) {
      if (m.length != layers) {
        throw new IllegalArgumentException(m.length + " layers of weights, expected " + layers);
      }
      for (float[] a : m) {
        if (a.length != size) {
          throw new IllegalArgumentException(a.length + " weights in a layer, expected H d dh = " + size);
        }
      }
    }
  }

  /** Head {@code h} of layer {@code l}'s {@code W_Q} as a (d, dh) matrix in double (for checks and references). */
  public double[][] wq(int l, int h) {
    return block(q[l], h, hidden, headSize);
  }

  public double[][] wk(int l, int h) {
    return block(k[l], h, hidden, headSize);
  }

  public double[][] wv(int l, int h) {
    return block(v[l], h, hidden, headSize);
  }

  /** Head {@code h} of layer {@code l}'s {@code W_O}, (dh, d). */
  public double[][] wo(int l, int h) {
    return block(o[l], h, headSize, hidden);
  }

  private static double[][] block(float[] a, int h, int rows, int cols) {
    double[][] m = new double[rows][cols];
    int base = h * rows * cols;
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        m[i][j] = a[base + i * cols + j];
      }
    }
    return m;
  }

  /** From the checkpoint's (out, in) layout: the fused (3d, d) query-key-value weight and the (d, d) output weight. */
  static HeadWeights fromLinear(int heads, int hidden, float[][] qkv, float[][] out) {
    return fromLinear(heads, heads, hidden, qkv, out);
  }

  /**
   * As {@link #fromLinear(int, int, float[][], float[][])} for grouped-query attention: the fused weight is ((H + 2K)
   * dh, d), and query head h reads key/value head {@code h / (H / K)}, so its {@code W_K} and {@code W_V} are that
   * head's (TransformerLens's {@code W_K} of a grouped model: {@code repeat_interleave} over the heads).
   */
  static HeadWeights fromLinear(int heads, int kvHeads, int hidden, float[][] qkv, float[][] out) {
    int layers = qkv.length;
    int r = hidden / heads;
    int group = heads / kvHeads;
    float[][] q = new float[layers][];
    float[][] k = new float[layers][];
    float[][] v = new float[layers][];
    float[][] o = new float[layers][];
    for (int l = 0; l < layers; l++) {
      q[l] = heads(qkv[l], 0, heads, 1, hidden, r);
      k[l] = heads(qkv[l], hidden, heads, group, hidden, r);
      v[l] = heads(qkv[l], hidden + kvHeads * r, heads, group, hidden, r);
      float[] ol = new float[heads * r * hidden];
      for (int h = 0; h < heads; h++) {
        for (int a = 0; a < r; a++) {
          for (int j = 0; j < hidden; j++) {
            // W_O^h[a][j] = out[j][h r + a]: output j of the (out, in) weight reads input h r + a
            ol[(h * r + a) * hidden + j] = out[l][j * hidden + h * r + a];
          }
        }
      }
      o[l] = ol;
    }
    return new HeadWeights(layers, heads, hidden, r, q, k, v, o);
  }

  /** W^h[i][a] = w[first + (h / group) r + a][i]: the rows of one projection, transposed per head. */
  private static float[] heads(float[] w, int first, int heads, int group, int hidden, int r) {
    float[] out = new float[heads * hidden * r];
    for (int h = 0; h < heads; h++) {
      for (int a = 0; a < r; a++) {
        int row = (first + (h / group) * r + a) * hidden;
        for (int i = 0; i < hidden; i++) {
          out[(h * hidden + i) * r + a] = w[row + i];
        }
      }
    }
    return out;
  }
}
