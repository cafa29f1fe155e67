package io.headscope.analysis.heads;

import io.headscope.model.AttentionTrace;
import io.headscope.model.Head;
import java.util.ArrayList;
import java.util.List;

/**
 * Scores and classifies attention maps (Kovaleva categories) and computes each head's statistics, in
 * one pass over the map. Pure Java on the trace's arrays; stateless apart from its thresholds.
 */
public final class HeadClassifier {
  /** Clark et al.'s smoothing before the entropy: {@code 0.9999 A + 0.0001 / n}. */
  static final double SMOOTH = 1e-4;

  private final Thresholds thresholds;

  public HeadClassifier(Thresholds thresholds) {
    this.thresholds = thresholds;
  }

  public HeadClassifier() {
    this(Thresholds.DEFAULT);
  }

  public Thresholds thresholds() {
    return thresholds;
  }

  /** Every head of the trace, layer by layer ({@code L*H} entries). */
  public List<HeadScore> classifyAll(AttentionTrace trace) {
    MapInput in = MapInput.of(trace);
    List<HeadScore> out = new ArrayList<>(trace.layers() * trace.heads());
    for (Head h : Head.all(trace.layers(), trace.heads())) {
      out.add(score(h, trace.map(h), trace.valueNorms()[h.layer()][h.head()], in));
    }
    return out;
  }

  public HeadScore classify(AttentionTrace trace, Head head) {
    return score(head, trace.map(head), trace.valueNorms()[head.layer()][head.head()], MapInput.of(trace));
  }

  /**
   * Scores one map.
   *
   * @param map {@code [query][key]}, rows summing to 1
   * @param norms {@code ||f(x_j)||} per key token (for the norm-weighted shares)
   * @param tokens the input's tokens
   * @param segments the segment of each token; all 0 for one sentence
   */
  public HeadScore score(Head head, float[][] map, float[] norms, List<String> tokens, long[] segments) {
    return score(head, map, norms, MapInput.of(tokens, segments));
  }

  HeadScore score(Head head, float[][] map, float[] norms, MapInput in) {
    int n = map.length;
    double[] colMean = new double[n];
    double[] offset = new double[3]; // sums of A_{i,i-1}, A_ii, A_{i,i+1}
    double[] weight = new double[4];
    double[] normShare = new double[4];
    double entropy = 0;
    double within = 0;
    double smooth = SMOOTH / n;
    for (int i = 0; i < n; i++) {
      float[] row = map[i];
      double rowNorm = 0;
      double[] rowTypes = new double[4];
      for (int j = 0; j < n; j++) {
        double a = row[j];
        colMean[j] += a;
        double p = (1 - SMOOTH) * a + smooth;
        entropy -= p * Math.log(p);
        int t = in.types[j];
        weight[t] += a;
        double w = a * norms[j];
        rowTypes[t] += w;
        rowNorm += w;
        if (in.segments[j] == in.segments[i]) {
          within += a;
        }
      }
      for (int k = -1; k <= 1; k++) {
        if (i + k >= 0 && i + k < n) {
          offset[k + 1] += row[i + k];
        }
      }
      if (rowNorm > 0) {
        for (int t = 0; t < 4; t++) {
          normShare[t] += rowTypes[t] / rowNorm;
        }
      }
    }
    for (int j = 0; j < n; j++) {
      colMean[j] /= n;
    }
    for (int t = 0; t < 4; t++) {
      weight[t] /= n;
      normShare[t] /= n;
    }
    double meanNorm = 0;
    for (float v : norms) {
      meanNorm += v;
    }
    meanNorm /= Math.max(1, norms.length);

    // vertical: the one or two most-attended columns
    int top1 = 0;
    int top2 = -1;
    for (int j = 1; j < n; j++) {
      if (colMean[j] > colMean[top1]) {
        top2 = top1;
        top1 = j;
      } else if (top2 < 0 || colMean[j] > colMean[top2]) {
        top2 = j;
      }
    }
    List<String> topColumns = new ArrayList<>(2);
    topColumns.add(in.tokens.get(top1));
    double vertical = colMean[top1];
    if (top2 >= 0 && colMean[top2] >= thresholds.secondColumn()) {
      topColumns.add(in.tokens.get(top2));
      vertical += colMean[top2];
    }

    double diagonal = (offset[0] + offset[1] + offset[2]) / n;
    int dominant = 0;
    if (offset[0] > offset[dominant + 1]) {
      dominant = -1;
    }
    if (offset[2] > offset[dominant + 1]) {
      dominant = 1;
    }

    double block = 0;
    if (in.pair) {
      double keep = within / n;
      double expected = in.uniformWithin;
      block = expected < 1 ? Math.max(0, (keep - expected) / (1 - expected)) : 0;
    }
    vertical = clamp(vertical);
    diagonal = clamp(diagonal);
    block = clamp(block);
    double heterogeneous = 1 - Math.max(vertical, Math.max(diagonal, block));

    HeadStats stats = new HeadStats(entropy / n,
        n > 1 ? offset[0] / (n - 1) : 0, n > 1 ? offset[2] / (n - 1) : 0, offset[1] / n,
        weight[0], weight[1], weight[2], weight[3], meanNorm,
        normShare[0], normShare[1], normShare[2], normShare[3]);
    Thresholds.Decision d = thresholds.decide(vertical, diagonal, block);
    return new HeadScore(head, d.category(), d.confidence(), vertical, diagonal, block, heterogeneous,
        topColumns, dominant, stats);
  }

  private static double clamp(double x) {
    return Math.max(0, Math.min(1, x));
  }

  /** What every head of one input shares: token types, segments, the uniform map's within-segment share. */
  record MapInput(List<String> tokens, int[] types, long[] segments, boolean pair, double uniformWithin) {
    static MapInput of(AttentionTrace t) {
      return of(t.tokens(), t.encoding().segments());
    }

    static MapInput of(List<String> tokens, long[] segments) {
      int n = tokens.size();
      int[] types = new int[n];
      int second = 0;
      for (int j = 0; j < n; j++) {
        types[j] = TokenType.of(tokens.get(j)).ordinal();
        if (segments[j] != segments[0]) {
          second++;
        }
      }
      boolean pair = second > 0;
      double first = n - second;
      double within = n == 0 ? 1 : (first * first + (double) second * second) / ((double) n * n);
      return new MapInput(tokens, types, segments, pair, within);
    }
  }
}
