package io.headscope.analysis.heads;

import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import java.util.ArrayList;
import java.util.List;

/**
 * Scores and classifies attention maps (Kovaleva categories) and computes each head's statistics, in
 * one pass over the map. Pure Java on the trace's arrays; stateless apart from its thresholds and model.
 *
 * <p>Two ways to turn the scores into a category ({@link Method}): the threshold rule of {@link
 * Thresholds}, which a person can follow by hand, and a logistic model over the same scores and a few
 * more map features ({@link MapFeatures}), trained on the hand-labelled maps; which one is the default
 * and why is in {@code labels/README.md} and METHODS.md (grouped cross-validation).
 */
public final class HeadClassifier {
  /** How the category is decided from a map's features. */
  public enum Method {
    /** {@link Thresholds#decide}: the category rule, confidence from the margins past thresholds. */
    RULE,
    /** {@link LearnedRule}: the most probable category of the shipped logistic model, its probability as confidence. */
    LEARNED;

    /** The default: the learned model, which agrees better with the labellers on held-out inputs. */
    public static final Method DEFAULT = LEARNED;

    /** Parses {@code rule} or {@code learned}. */
    public static Method parse(String s) {
      String t = s == null ? "" : s.trim().toLowerCase(java.util.Locale.ROOT);
      for (Method m : values()) {
        if (m.name().toLowerCase(java.util.Locale.ROOT).equals(t)) {
          return m;
        }
      }
      throw new io.headscope.model.core.HeadScopeException("\"" + s + "\" is not a classifier: use learned or rule.");
    }
  }

  /** Clark et al.'s smoothing before the entropy: {@code 0.9999 A + 0.0001 / n}. */
  static final double SMOOTH = 1e-4;

  private final Thresholds thresholds;
  private final LearnedRule learned;

  /** Classifies by the threshold rule with these thresholds. */
  public HeadClassifier(Thresholds thresholds) {
    this(thresholds, null);
  }

  /** Classifies by the given model, or by the rule when {@code learned} is null. */
  public HeadClassifier(Thresholds thresholds, LearnedRule learned) {
    this.thresholds = thresholds;
    this.learned = learned;
  }

  /** The default method with the default thresholds and the shipped model. */
  public HeadClassifier() {
    this(Method.DEFAULT);
  }

  public HeadClassifier(Method method) {
    this(Thresholds.DEFAULT, method == Method.LEARNED ? LearnedRule.shipped() : null);
  }

  public Thresholds thresholds() {
    return thresholds;
  }

  public Method method() {
    return learned == null ? Method.RULE : Method.LEARNED;
  }

  /** The category by this classifier's method: the rule reads the scores, the model the features. */
  public Thresholds.Decision decide(double vertical, double focus, double diagonal, double block, MapFeatures features) {
    return learned != null ? learned.decide(features) : thresholds.decide(vertical, focus, diagonal, block);
  }

  /** Every head of the trace, layer by layer ({@code L*H} entries). */
  /**
   * Whether the categories apply to a model's maps: Kovaleva et al. defined them, and the learned rule
   * was trained, on bidirectional maps. A causal model's maps (GPT-2) are lower-triangular, so a map's
   * "diagonal" and "block" shares would not mean what they mean for BERT; until categories are checked
   * on labelled causal maps they are withheld, not guessed.
   */
  public static boolean appliesTo(io.headscope.model.BertModel model) {
    return !model.config().family().causal();
  }

  /** {@link #appliesTo}, as the one line a command refusing categories prints. */
  public static void refuseUnlessApplies(io.headscope.model.BertModel model) {
    if (!appliesTo(model)) {
      throw new io.headscope.model.core.HeadScopeException(model.name() + " is "
          + model.config().family().withArticle() + ", whose attention is causal (each token sees only the tokens "
          + "before it); Kovaleva et al.'s categories are defined, and HeadScope's classifier trained, on "
          + "bidirectional maps, so HeadScope withholds them here. Maps, value norms, switches, sweeps and flow work.");
    }
  }

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
    return analyse(head, map, norms, in).score();
  }

  /** A map's score with the features the learned model read (for training and evaluating it). */
  record Analysed(HeadScore score, MapFeatures features) {}

  Analysed analyse(AttentionTrace trace, Head head) {
    return analyse(head, trace.map(head), trace.valueNorms()[head.layer()][head.head()], MapInput.of(trace));
  }

  Analysed analyse(Head head, float[][] map, float[] norms, MapInput in) {
    int n = map.length;
    double[] colMean = new double[n];
    double[] offset = new double[3]; // sums of A_{i,i-1}, A_ii, A_{i,i+1}
    double[] weight = new double[4];
    double[] normShare = new double[4];
    double entropy = 0;
    double smooth = SMOOTH / n;
    int[] rowArgmax = new int[n];
    for (int i = 0; i < n; i++) {
      float[] row = map[i];
      double rowNorm = 0;
      double[] rowTypes = new double[4];
      for (int j = 0; j < n; j++) {
        double a = row[j];
        if (a > row[rowArgmax[i]]) {
          rowArgmax[i] = j;
        }
        colMean[j] += a;
        double p = (1 - SMOOTH) * a + smooth;
        entropy -= p * Math.log(p);
        int t = in.types[j];
        weight[t] += a;
        double w = a * norms[j];
        rowTypes[t] += w;
        rowNorm += w;
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
    boolean[] top = new boolean[n];
    top[top1] = true;
    List<String> topColumns = new ArrayList<>(2);
    topColumns.add(in.tokens.get(top1));
    double verticalMass = colMean[top1];
    if (top2 >= 0 && colMean[top2] >= thresholds.secondColumn()) {
      top[top2] = true;
      topColumns.add(in.tokens.get(top2));
      verticalMass += colMean[top2];
    }
    double vertical = aboveUniform(verticalMass, topColumns.size() / (double) n);
    double focus = verticalFocus(map, top);
    double diagonal = diagonalBeyondColumns(map, top, in.segments);
    int dominant = 0;
    if (offset[0] > offset[dominant + 1]) {
      dominant = -1;
    }
    if (offset[2] > offset[dominant + 1]) {
      dominant = 1;
    }
    double block = in.pair ? blockBeyondDistance(map, top, in.segments) : 0;
    double heterogeneous = 1 - Math.max(vertical, Math.max(diagonal, block));

    HeadStats stats = new HeadStats(entropy / n,
        n > 1 ? offset[0] / (n - 1) : 0, n > 1 ? offset[2] / (n - 1) : 0, offset[1] / n,
        weight[0], weight[1], weight[2], weight[3], meanNorm,
        normShare[0], normShare[1], normShare[2], normShare[3]);
    MapFeatures features = MapFeatures.of(vertical, focus, diagonal, block, stats, rowArgmax, top, in.pair,
        colMean[top1], top2 >= 0 ? colMean[top2] : 0, map, in.special, in.segments, colMean);
    Thresholds.Decision d = decide(vertical, focus, diagonal, block, features);
    return new Analysed(new HeadScore(head, d.category(), d.confidence(), vertical, focus, diagonal, block,
        heterogeneous, topColumns, dominant, stats, features, d.runnerUp(), d.runnerUpConfidence(), d.uncertain()),
        features);
  }

  /**
   * Of the cells that stand out in their row (at least {@link Thresholds#SALIENT} of the row's
   * largest weight), the share that lies in the top columns. A column over a diffuse background that
   * other cells rival scores low even when its mean weight is high: what the eye sees as "not only
   * the column".
   */
  static double verticalFocus(float[][] map, boolean[] top) {
    int salient = 0;
    int inTop = 0;
    for (float[] row : map) {
      float max = 0;
      for (float a : row) {
        max = Math.max(max, a);
      }
      double floor = Thresholds.SALIENT * max;
      for (int j = 0; j < row.length; j++) {
        if (row[j] >= floor) {
          salient++;
          inTop += top[j] ? 1 : 0;
        }
      }
    }
    return salient == 0 ? 0 : inTop / (double) salient;
  }

  /**
   * The band ({@code |i - j| <= 1}) outside the top columns: per row, the band's share of the weight
   * the top columns leave, averaged over rows and corrected for chance (a row uniform over its own
   * segment's other columns, so a block map is not diagonal), then multiplied by the mean weight left.
   * A faint band under a strong column scores low (the eye does not see it); the same band under a
   * weaker column scores as a diagonal.
   */
  static double diagonalBeyondColumns(float[][] map, boolean[] top, long[] segments) {
    int n = map.length;
    double share = 0;
    double chance = 0;
    double left = 0;
    int rows = 0;
    for (int i = 0; i < n; i++) {
      float[] row = map[i];
      double rest = 0;
      double band = 0;
      int own = 0;
      int ownBand = 0;
      for (int j = 0; j < n; j++) {
        if (top[j]) {
          continue;
        }
        rest += row[j];
        boolean inBand = Math.abs(i - j) <= 1;
        if (inBand) {
          band += row[j];
        }
        if (segments[j] == segments[i]) {
          own++;
          ownBand += inBand ? 1 : 0;
        }
      }
      left += rest;
      if (rest > 1e-9) {
        rows++;
        share += band / rest;
        chance += own == 0 ? 1 : ownBand / (double) own;
      }
    }
    if (rows == 0) {
      return 0;
    }
    return aboveUniform(share / rows, chance / rows) * left / n;
  }

  /**
   * Attention kept within the query's own segment, beyond what its distances explain. Local heads
   * also stay mostly within a segment (near tokens usually share it), so each row's weight at each
   * distance {@code d} is compared with the same weight spread evenly over the (one or two) cells at
   * that distance, {@code i - d} and {@code i + d}; top columns are left out. 0 is "no more within
   * the segment than the distances predict", 1 "all of it within, wherever the distances pointed".
   */
  static double blockBeyondDistance(float[][] map, boolean[] top, long[] segments) {
    int n = map.length;
    double observed = 0;
    double expected = 0;
    double total = 0;
    for (int i = 0; i < n; i++) {
      float[] row = map[i];
      for (int d = 1; d < n; d++) {
        double mass = 0;
        double within = 0;
        int cells = 0;
        int same = 0;
        for (int side = -1; side <= 1; side += 2) {
          int j = i + side * d;
          if (j < 0 || j >= n || top[j]) {
            continue;
          }
          cells++;
          mass += row[j];
          if (segments[j] == segments[i]) {
            same++;
            within += row[j];
          }
        }
        if (cells > 0) {
          observed += within;
          expected += mass * same / cells;
          total += mass;
        }
      }
    }
    return total <= 0 ? 0 : aboveUniform(observed / total, expected / total);
  }

  /**
   * The chance correction every score shares: {@code (mass - u) / (1 - u)} clipped to [0,1], where
   * {@code u} is what a uniform map puts in the same cells. 0 means no more than a uniform map, 1 all
   * of the weight; it keeps short inputs (where three cells of a row are already a third) comparable
   * with long ones.
   */
  static double aboveUniform(double mass, double u) {
    if (u >= 1) {
      return 0;
    }
    return Math.max(0, Math.min(1, (mass - u) / (1 - u)));
  }

  /** What every head of one input shares: its tokens, their types and segments. */
  /** @param special whether each token is [CLS] or [SEP] (or the family's equivalents) */
  record MapInput(List<String> tokens, int[] types, long[] segments, boolean pair, boolean[] special) {

    static MapInput of(AttentionTrace t) {
      return of(t.tokens(), t.encoding().segments());
    }

    static MapInput of(List<String> tokens, long[] segments) {
      int n = tokens.size();
      int[] types = new int[n];
      boolean[] special = new boolean[n];
      boolean pair = false;
      for (int j = 0; j < n; j++) {
        types[j] = TokenType.of(tokens.get(j)).ordinal();
        pair |= segments[j] != segments[0];
        special[j] = types[j] == TokenType.CLS.ordinal() || types[j] == TokenType.SEP.ordinal();
      }
      return new MapInput(tokens, types, segments, pair, special);
    }
  }
}
