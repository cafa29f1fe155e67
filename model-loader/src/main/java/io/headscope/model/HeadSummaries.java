package io.headscope.model;

import io.headscope.model.core.Head;

/**
 * What the grid and the ranking read of every head without its full map: a trace of summaries ({@link
 * TraceRequest.Keep#SUMMARIES}) keeps these instead of the maps; a full trace gives the same numbers from its
 * maps ({@link #of}). Means are over the input's query rows (each row a distribution over its keys).
 *
 * @param maxWeight {@code [layer][head]}: the map's largest weight
 * @param sink {@code [layer][head]}: the first token's share of attention, the mean over rows of the weight
 *     on key 0 (the attention sink of decoders, {@code [CLS]} of BERT)
 * @param entropy {@code [layer][head]}: the mean row entropy in nats ({@code -sum_j p log p}, 0 log 0 = 0)
 * @param received {@code [layer][head][key]}: the mean over rows of the weight on each key, so a token type's
 *     share of attention is the sum over its keys
 * @param thumbnails {@code [layer][head][row][col]}: the map max-pooled to {@code min(length, side)} cells
 *     a side, row i in block {@code floor(i g / length)}
 * @param side the thumbnails' largest side
 */
public record HeadSummaries(float[][] maxWeight, float[][] sink, float[][] entropy, float[][][] received,
    float[][][][] thumbnails, int side) {

  public int layers() {
    return maxWeight.length;
  }

  public int heads() {
    return maxWeight.length == 0 ? 0 : maxWeight[0].length;
  }

  public float[][] thumbnail(Head h) {
    return thumbnails[h.layer()][h.head()];
  }

  /** The summaries of full maps {@code [layer][head][query][key]}, computed here in double from the maps. */
  public static HeadSummaries of(float[][][][] attention, int side) {
    int layers = attention.length;
    int heads = layers == 0 ? 0 : attention[0].length;
    float[][] max = new float[layers][heads];
    float[][] sink = new float[layers][heads];
    float[][] entropy = new float[layers][heads];
    float[][][] received = new float[layers][heads][];
    float[][][][] thumbs = new float[layers][heads][][];
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        float[][] m = attention[l][h];
        int n = m.length;
        double[] col = new double[n];
        double first = 0;
        double ent = 0;
        float top = 0;
        for (float[] row : m) {
          first += row[0];
          for (int j = 0; j < n; j++) {
            float p = row[j];
            top = Math.max(top, p);
            col[j] += p;
            if (p > 0) {
              ent -= p * Math.log(p);
            }
          }
        }
        max[l][h] = top;
        sink[l][h] = (float) (first / n);
        entropy[l][h] = (float) (ent / n);
        received[l][h] = new float[n];
        for (int j = 0; j < n; j++) {
          received[l][h][j] = (float) (col[j] / n);
        }
        thumbs[l][h] = pooled(m, side);
      }
    }
    return new HeadSummaries(max, sink, entropy, received, thumbs, side);
  }

  /** Max-pooled to at most {@code side} cells a side, row i to block {@code floor(i g / n)}. */
  static float[][] pooled(float[][] m, int side) {
    int n = m.length;
    int g = Math.min(n, side);
    float[][] out = new float[g][g];
    for (int i = 0; i < n; i++) {
      int r = (int) ((long) i * g / n);
      for (int j = 0; j < n; j++) {
        int k = (int) ((long) j * g / n);
        out[r][k] = Math.max(out[r][k], m[i][j]);
      }
    }
    return out;
  }
}
