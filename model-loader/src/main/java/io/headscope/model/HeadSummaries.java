package io.headscope.model;

import io.headscope.model.core.Head;

/**
 * What the grid and the ranking read of every head without its full map: a trace of summaries ({@link
 * TraceRequest.Keep#SUMMARIES}) keeps these instead of the maps; a full trace gives the same numbers from its
 * maps ({@link #of}). Means are over the input's query rows (each row a distribution over its keys); a cross-attention map
 * (target queries x source keys) is summarised the same way.
 *
 * @param maxWeight {@code [layer][head]}: the map's largest weight
 * @param sink {@code [layer][head]}: the first token's share of attention, the mean over rows of the weight
 *     on key 0 (the attention sink of decoders, {@code [CLS]} of BERT)
 * @param entropy {@code [layer][head]}: the mean row entropy in nats ({@code -sum_j p log p}, 0 log 0 = 0)
 * @param received {@code [layer][head][key]}: the mean over rows of the weight on each key, so a token type's
 *     share of attention is the sum over its keys
 * @param thumbnails {@code [layer][head][row][col]}: the map max-pooled to {@code min(queries, side)} by
 *     {@code min(keys, side)} cells, row i in block {@code floor(i g / queries)}
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
        int rows = m.length; // queries
        int keys = rows == 0 ? 0 : m[0].length; // a cross map has as many keys as the source has tokens
        double[] col = new double[keys];
        double first = 0;
        double ent = 0;
        float top = 0;
        for (float[] row : m) {
          first += row[0];
          for (int j = 0; j < keys; j++) {
            float p = row[j];
            top = Math.max(top, p);
            col[j] += p;
            if (p > 0) {
              ent -= p * Math.log(p);
            }
          }
        }
        max[l][h] = top;
        sink[l][h] = (float) (first / rows);
        entropy[l][h] = (float) (ent / rows);
        received[l][h] = new float[keys];
        for (int j = 0; j < keys; j++) {
          received[l][h][j] = (float) (col[j] / rows);
        }
        thumbs[l][h] = pooled(m, side);
      }
    }
    return new HeadSummaries(max, sink, entropy, received, thumbs, side);
  }

  /**
   * Max-pooled to at most {@code side} cells a side, row i to block {@code floor(i g / rows)} and key j to block
   * {@code floor(j g' / keys)}: square for a self-attention map, rectangular for a cross map (target x source).
   */
  static float[][] pooled(float[][] m, int side) {
    int rows = m.length;
    int keys = rows == 0 ? 0 : m[0].length;
    int g = Math.min(rows, side);
    int gk = Math.min(keys, side);
    float[][] out = new float[g][gk];
    for (int i = 0; i < rows; i++) {
      int r = (int) ((long) i * g / rows);
      for (int j = 0; j < keys; j++) {
        int k = (int) ((long) j * gk / keys);
        out[r][k] = Math.max(out[r][k], m[i][j]);
      }
    }
    return out;
  }
}
