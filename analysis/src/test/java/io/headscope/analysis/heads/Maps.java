package io.headscope.analysis.heads;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/** Small hand-made attention maps and inputs for the unit tests. */
final class Maps {
  /** "[CLS] the cat sat on the mat , and the dog slept . [SEP]": 14 tokens, one sentence. */
  static final List<String> SENTENCE = List.of(
      "[CLS]", "the", "cat", "sat", "on", "the", "mat", ",", "and", "the", "dog", "slept", ".", "[SEP]");

  /** A pair: "[CLS] the cat sat on the mat . [SEP] a dog slept there . [SEP]": 8 + 6 tokens. */
  static final List<String> PAIR = List.of(
      "[CLS]", "the", "cat", "sat", "on", "the", "mat", ".", "[SEP]", "a", "dog", "slept", ".", "[SEP]");

  static final int PAIR_SECOND = 9;

  private Maps() {}

  static long[] segments(List<String> tokens) {
    long[] s = new long[tokens.size()];
    if (tokens == PAIR) {
      Arrays.fill(s, PAIR_SECOND, s.length, 1L);
    }
    return s;
  }

  static float[] ones(int n) {
    float[] v = new float[n];
    Arrays.fill(v, 1f);
    return v;
  }

  /** Every row entirely on column {@code j}. */
  static float[][] vertical(int n, int j) {
    float[][] a = new float[n][n];
    for (float[] row : a) {
      row[j] = 1f;
    }
    return a;
  }

  /** Row i entirely on i+k; rows where i+k falls outside attend to themselves. */
  static float[][] shifted(int n, int k) {
    float[][] a = new float[n][n];
    for (int i = 0; i < n; i++) {
      int j = i + k;
      a[i][j >= 0 && j < n ? j : i] = 1f;
    }
    return a;
  }

  /** Half the weight on column j, half on offset k. */
  static float[][] verticalDiagonal(int n, int j, int k) {
    float[][] v = vertical(n, j);
    float[][] d = shifted(n, k);
    float[][] a = new float[n][n];
    for (int i = 0; i < n; i++) {
      for (int c = 0; c < n; c++) {
        a[i][c] = 0.5f * v[i][c] + 0.5f * d[i][c];
      }
    }
    return a;
  }

  /** Each row uniform over its own segment (the pair's block pattern). */
  static float[][] block(long[] segments) {
    int n = segments.length;
    float[][] a = new float[n][n];
    for (int i = 0; i < n; i++) {
      int size = 0;
      for (long s : segments) {
        size += s == segments[i] ? 1 : 0;
      }
      for (int j = 0; j < n; j++) {
        a[i][j] = segments[j] == segments[i] ? 1f / size : 0f;
      }
    }
    return a;
  }

  static float[][] uniform(int n) {
    float[][] a = new float[n][n];
    for (float[] row : a) {
      Arrays.fill(row, 1f / n);
    }
    return a;
  }

  /** Rows of independent random weights, each normalised (no structure). */
  static float[][] random(int n, long seed) {
    Random r = new Random(seed);
    float[][] a = new float[n][n];
    for (float[] row : a) {
      double sum = 0;
      for (int j = 0; j < n; j++) {
        row[j] = r.nextFloat();
        sum += row[j];
      }
      for (int j = 0; j < n; j++) {
        row[j] /= (float) sum;
      }
    }
    return a;
  }

  static List<String> tokens(String which) {
    return new ArrayList<>(which.equals("pair") ? PAIR : SENTENCE);
  }
}
