package io.headscope.analysis.linguistics.probes;

import io.headscope.analysis.linguistics.Sentence;

/**
 * The probes' features of one sentence: every head's word-level attention between any two of
 * {@code [CLS]} (index 0, standing for the root) and the words 1..n, restacked so that the 144 heads of
 * one word pair lie side by side ({@code [SEP]} is not a candidate and is dropped).
 *
 * @param sentence the gold tree
 * @param attention {@code [from word][to word][l * H + h]}, words 0..n
 */
public record PairAttention(Sentence sentence, float[][][] attention) {

  /**
   * From the word-level maps of {@link io.headscope.analysis.linguistics.WordMaps} (the same Clark
   * conversion the single-head scores use).
   *
   * @param maps {@code [layer][head][word][word]} with {@code [CLS]} at 0 and {@code [SEP]} at n + 1
   */
  public static PairAttention of(Sentence sentence, float[][][][] maps) {
    int n = sentence.size();
    int layers = maps.length;
    int heads = maps[0].length;
    float[][][] a = new float[n + 1][n + 1][layers * heads];
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        float[][] m = maps[l][h];
        for (int i = 0; i <= n; i++) {
          for (int j = 0; j <= n; j++) {
            a[i][j][l * heads + h] = m[i][j];
          }
        }
      }
    }
    return new PairAttention(sentence, a);
  }

  /** Heads of the model ({@code L * H}); a pair has twice as many features. */
  public int heads() {
    return attention[0][0].length;
  }

  public int words() {
    return sentence.size();
  }

  /** Each head's attention from word {@code i} to word {@code j}. */
  public float[] from(int i, int j) {
    return attention[i][j];
  }
}
