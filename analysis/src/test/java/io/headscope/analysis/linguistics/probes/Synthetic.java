package io.headscope.analysis.linguistics.probes;

import io.headscope.analysis.linguistics.Sentence;
import io.headscope.analysis.linguistics.Word;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random dependency trees and hand-made word-level maps for the probe tests. */
final class Synthetic {
  private Synthetic() {}

  /** A random tree over {@code n} words: a random root, then each word in a random order under one already placed. */
  static Sentence tree(int n, Random r, String id) {
    List<Integer> order = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      order.add(i);
    }
    java.util.Collections.shuffle(order, r);
    int[] head = new int[n + 1];
    for (int k = 1; k < n; k++) {
      head[order.get(k)] = order.get(r.nextInt(k));
    }
    List<Word> words = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      words.add(new Word(i, "w" + i, "X", head[i], head[i] == 0 ? "root" : "dep"));
    }
    return new Sentence("d", id, 1, words, List.of());
  }

  /**
   * Word-level maps {@code [layers][heads][n + 2][n + 2]} ({@code [CLS]}, words, {@code [SEP]}) of
   * noise uniform in {@code [0, noise)}, except that at head {@code (signalLayer, signalHead)} each
   * word's row puts {@code 0.5} to {@code 1} on its gold head ({@code [CLS]} for the root).
   */
  static float[][][][] maps(Sentence s, int layers, int heads, int signalLayer, int signalHead, double noise,
      Random r) {
    int w = s.size() + 2;
    float[][][][] m = new float[layers][heads][w][w];
    for (float[][][] layer : m) {
      for (float[][] map : layer) {
        for (float[] row : map) {
          for (int j = 0; j < w; j++) {
            row[j] = (float) (noise * r.nextDouble());
          }
        }
      }
    }
    for (Word word : s.words()) {
      m[signalLayer][signalHead][word.id()][word.head()] = (float) (0.5 + 0.5 * r.nextDouble());
    }
    return m;
  }

  /** {@code count} random sentences of 2 to 12 words with the signal at one head. */
  static List<PairAttention> data(int count, int layers, int heads, int signalLayer, int signalHead, double noise,
      Random r) {
    List<PairAttention> out = new ArrayList<>();
    for (int s = 0; s < count; s++) {
      Sentence t = tree(2 + r.nextInt(11), r, "s" + s);
      out.add(PairAttention.of(t, maps(t, layers, heads, signalLayer, signalHead, noise, r)));
    }
    return out;
  }
}
