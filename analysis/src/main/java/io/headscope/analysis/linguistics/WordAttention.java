package io.headscope.analysis.linguistics;

import java.util.ArrayList;
import java.util.List;

/**
 * Word-level attention (Clark et al. 2019): attention <em>to</em> a word is the sum over its
 * wordpieces, attention <em>from</em> a word is the mean over its wordpieces, so each word-level row
 * still sums to 1. {@code [CLS]} and {@code [SEP]} are words of their own.
 */
public final class WordAttention {
  private WordAttention() {}

  /**
   * The word-level map of a wordpiece map.
   *
   * @param map {@code [query piece][key piece]}
   * @param wordOf the word of each piece (0-based, non-decreasing)
   * @param words the number of words
   */
  public static float[][] toWords(float[][] map, int[] wordOf, int words) {
    int n = map.length;
    double[][] sum = new double[words][words];
    int[] pieces = new int[words];
    for (int q = 0; q < n; q++) {
      pieces[wordOf[q]]++;
      double[] row = sum[wordOf[q]];
      for (int k = 0; k < n; k++) {
        row[wordOf[k]] += map[q][k]; // to a word: the sum over its pieces
      }
    }
    float[][] out = new float[words][words];
    for (int w = 0; w < words; w++) {
      for (int v = 0; v < words; v++) {
        out[w][v] = pieces[w] == 0 ? 0f : (float) (sum[w][v] / pieces[w]); // from a word: the mean
      }
    }
    return out;
  }

  /**
   * The words of typed text's wordpieces: a piece starting with {@code ##} continues the word before
   * it; special tokens ({@code [CLS]}, {@code [SEP]}, {@code [MASK]}, ...) are words of their own.
   */
  public static Words of(List<String> tokens) {
    int[] wordOf = new int[tokens.size()];
    List<String> words = new ArrayList<>();
    for (int t = 0; t < tokens.size(); t++) {
      String tok = tokens.get(t);
      boolean continues = tok.startsWith("##") && t > 0 && !isSpecial(tokens.get(t - 1));
      if (continues) {
        int w = words.size() - 1;
        words.set(w, words.get(w) + tok.substring(2));
      } else {
        words.add(tok);
      }
      wordOf[t] = words.size() - 1;
    }
    return new Words(List.copyOf(words), wordOf);
  }

  /** The words and, for each wordpiece, its word's index. */
  public record Words(List<String> words, int[] wordOf) {
    public float[][] map(float[][] pieceMap) {
      return toWords(pieceMap, wordOf, words.size());
    }
  }

  private static boolean isSpecial(String tok) {
    return tok.startsWith("[") && tok.endsWith("]") && tok.length() > 2;
  }
}
