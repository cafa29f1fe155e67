package io.headscope.analysis.linguistics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How well each attention head predicts dependency relations (Clark et al. 2019, Section 4.2), word
 * by word over a treebank, per relation and over all words.
 *
 * <p>On the word-level map of a head with self-attention set to 0 and the {@code [CLS]}/{@code [SEP]}
 * rows and columns dropped, a word's predicted head is the word it attends to most ({@code dep->head})
 * or the word that attends to it most ({@code head->dep}); a word whose gold head is the root can
 * never be right (Clark's convention), but counts in {@code all}. Ties go to the earlier word.
 */
public final class DependencyHeads {
  public static final String ALL = "all";
  /**
   * Clark's positional baseline ({@code range(-3, 3)} in his notebook): the word with 1-based id
   * {@code i} gets {@code i + offset}, clamped to 0..n, as its head. Offset 0 (itself) is never right
   * but is in Clark's range.
   */
  public static final int[] OFFSETS = {-3, -2, -1, 0, 1, 2};

  /** Direction of a prediction. */
  public enum Direction {
    DEP_TO_HEAD("dep->head"),
    HEAD_TO_DEP("head->dep");

    private final String label;

    Direction(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private final int layers;
  private final int heads;
  private final boolean universal;
  /** relation -> [layer][head][direction] correct counts, and the word count. */
  private final Map<String, long[][][]> correct = new TreeMap<>();
  private final Map<String, Long> count = new TreeMap<>();
  /** relation -> correct counts per baseline offset. */
  private final Map<String, long[]> baseline = new TreeMap<>();
  private int sentences;

  public DependencyHeads(int layers, int heads, boolean universal) {
    this.layers = layers;
    this.heads = heads;
    this.universal = universal;
  }

  /**
   * Scores one sentence.
   *
   * @param maps word-level maps {@code [layer][head][word][word]} including {@code [CLS]} (index 0)
   *     and {@code [SEP]} (index n + 1)
   */
  public void add(Sentence s, float[][][][] maps) {
    int n = s.size();
    sentences++;
    int[][][][] predicted = new int[layers][heads][2][];
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        predicted[l][h][0] = argmaxRows(maps[l][h], n, false);
        predicted[l][h][1] = argmaxRows(maps[l][h], n, true);
      }
    }
    for (Word w : s.words()) {
      String rel = universal ? w.universalRelation() : w.deprel();
      for (String key : List.of(rel, ALL)) {
        count.merge(key, 1L, Long::sum);
        long[][][] c = correct.computeIfAbsent(key, k -> new long[layers][heads][2]);
        long[] b = baseline.computeIfAbsent(key, k -> new long[OFFSETS.length]);
        for (int l = 0; l < layers; l++) {
          for (int h = 0; h < heads; h++) {
            for (int d = 0; d < 2; d++) {
              if (w.head() != 0 && predicted[l][h][d][w.id()] == w.head()) {
                c[l][h][d]++;
              }
            }
          }
        }
        for (int o = 0; o < OFFSETS.length; o++) {
          int guess = Math.max(0, Math.min(n, w.id() + OFFSETS[o]));
          if (guess == w.head()) {
            b[o]++;
          }
        }
      }
    }
  }

  /**
   * For words 1..n, the word (1..n) with the largest weight in its row ({@code transposed}: column),
   * self excluded (set to 0), {@code [CLS]} and {@code [SEP]} dropped.
   */
  static int[] argmaxRows(float[][] map, int n, boolean transposed) {
    int[] out = new int[n + 1];
    for (int i = 1; i <= n; i++) {
      int best = -1;
      float bestValue = 0;
      for (int j = 1; j <= n; j++) {
        float v = j == i ? 0f : transposed ? map[j][i] : map[i][j];
        if (best < 0 || v > bestValue) {
          best = j;
          bestValue = v;
        }
      }
      out[i] = best;
    }
    return out;
  }

  public int sentences() {
    return sentences;
  }

  /**
   * The counts, for a shard's partial result: integers, so shards add up exactly.
   *
   * @param correct relation -> [layer][head][direction] correct counts
   * @param count relation -> words
   * @param baseline relation -> correct counts per offset of {@link #OFFSETS}
   */
  public record State(int layers, int heads, boolean universal, int sentences, Map<String, long[][][]> correct,
      Map<String, Long> count, Map<String, long[]> baseline) {}

  public State state() {
    return new State(layers, heads, universal, sentences, new TreeMap<>(correct), new TreeMap<>(count),
        new TreeMap<>(baseline));
  }

  /** Counts read back from {@link #state()}. */
  public static DependencyHeads of(State s) {
    DependencyHeads d = new DependencyHeads(s.layers(), s.heads(), s.universal());
    d.sentences = s.sentences();
    s.correct().forEach((k, v) -> d.correct.put(k, v));
    d.count.putAll(s.count());
    s.baseline().forEach((k, v) -> d.baseline.put(k, v));
    return d;
  }

  /** Adds another shard's counts (same model size and relation labels). */
  public void add(DependencyHeads other) {
    if (other.layers != layers || other.heads != heads || other.universal != universal) {
      throw new IllegalArgumentException("counts of different models or labels");
    }
    sentences += other.sentences;
    other.count.forEach((k, v) -> count.merge(k, v, Long::sum));
    other.correct.forEach((k, v) -> {
      long[][][] c = correct.computeIfAbsent(k, x -> new long[layers][heads][2]);
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          for (int d = 0; d < 2; d++) {
            c[l][h][d] += v[l][h][d];
          }
        }
      }
    });
    other.baseline.forEach((k, v) -> {
      long[] b = baseline.computeIfAbsent(k, x -> new long[OFFSETS.length]);
      for (int o = 0; o < b.length; o++) {
        b[o] += v[o];
      }
    });
  }

  public int layers() {
    return layers;
  }

  public int heads() {
    return heads;
  }

  /** One relation x head x direction. */
  public record Score(String relation, long count, int layer, int head, Direction direction, double accuracy) {}

  /** The best head of a relation beside its positional baseline. */
  public record Best(String relation, long count, int layer, int head, Direction direction, double accuracy,
      int baselineOffset, double baselineAccuracy) {}

  /** Every score: relations by count (then name), then layer, head, direction; layers and heads 1-based. */
  public List<Score> scores() {
    List<Score> out = new ArrayList<>();
    for (String rel : relationsByCount()) {
      long n = count.get(rel);
      long[][][] c = correct.get(rel);
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          for (Direction d : Direction.values()) {
            out.add(new Score(rel, n, l + 1, h + 1, d, c[l][h][d.ordinal()] / (double) n));
          }
        }
      }
    }
    return out;
  }

  /** Per relation, by count: the best head and direction (the first in layer, head, direction order on a tie). */
  public List<Best> best() {
    List<Best> out = new ArrayList<>();
    for (String rel : relationsByCount()) {
      long n = count.get(rel);
      long[][][] c = correct.get(rel);
      int bl = 0;
      int bh = 0;
      int bd = 0;
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          for (int d = 0; d < 2; d++) {
            if (c[l][h][d] > c[bl][bh][bd]) {
              bl = l;
              bh = h;
              bd = d;
            }
          }
        }
      }
      long[] b = baseline.get(rel);
      int bo = 0;
      for (int o = 1; o < OFFSETS.length; o++) {
        if (b[o] > b[bo]) {
          bo = o;
        }
      }
      out.add(new Best(rel, n, bl + 1, bh + 1, Direction.values()[bd], c[bl][bh][bd] / (double) n, OFFSETS[bo],
          b[bo] / (double) n));
    }
    return out;
  }

  /** The accuracy of one 0-based head in one direction for a relation (NaN when the relation never occurs). */
  public double accuracy(String relation, int layer, int head, Direction d) {
    Long n = count.get(relation);
    return n == null ? Double.NaN : correct.get(relation)[layer][head][d.ordinal()] / (double) n;
  }

  private List<String> relationsByCount() {
    List<String> rels = new ArrayList<>(count.keySet());
    rels.sort(Comparator.comparingLong((String r) -> -count.get(r)).thenComparing(r -> r));
    return rels;
  }
}
