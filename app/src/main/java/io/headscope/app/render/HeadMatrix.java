package io.headscope.app.render;

import io.headscope.analysis.linguistics.WordAttention;
import io.headscope.analysis.linguistics.WordTrace;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import java.util.List;

/**
 * What the head view draws: one head's map, as weights or as norm-weighted attention, cut to a
 * segment pair. Pure data: the same record feeds the window and the headless renderer.
 *
 * @param values [row][col] of the shown block
 * @param rowTokens query tokens of the block; {@code rowOffset} is the first one's index in the input
 * @param colTokens key tokens of the block
 * @param max the largest value (the top of the colour scale)
 */
public record HeadMatrix(Head head, Display display, PairFilter filter, float[][] values,
    List<String> rowTokens, List<String> colTokens, int rowOffset, int colOffset, float max, MapsShown maps,
    boolean words) {

  /** A wordpiece matrix. */
  public HeadMatrix(Head head, Display display, PairFilter filter, float[][] values, List<String> rowTokens,
      List<String> colTokens, int rowOffset, int colOffset, float max, MapsShown maps) {
    this(head, display, filter, values, rowTokens, colTokens, rowOffset, colOffset, max, maps, false);
  }

  /** A matrix of the intact model's maps. */
  public HeadMatrix(Head head, Display display, PairFilter filter, float[][] values, List<String> rowTokens,
      List<String> colTokens, int rowOffset, int colOffset, float max) {
    this(head, display, filter, values, rowTokens, colTokens, rowOffset, colOffset, max, MapsShown.INTACT);
  }

  /**
   * Whether the values are signed (a difference): drawn on the diverging scale from −max to +max,
   * where {@code max} is the largest magnitude.
   */
  public boolean signed() {
    return maps == MapsShown.DIFFERENCE;
  }

  /** Which quantity a map shows (METHODS.md). */
  public enum Display {
    WEIGHTS("Attention weights A"),
    NORMS("Norm-weighted ‖αf(x)‖"),
    /** Kobayashi's layer-level map: the same for every head of the layer. */
    LAYER_NORMS("Whole layer ‖Σₕ αf(x)‖"),
    /** Abnar and Zuidema's rollout up to the head's layer: the same for every head of the layer. */
    ROLLOUT("Rollout up to this layer");

    private final String label;

    Display(String label) {
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /** Which segments the rows (queries) and columns (keys) come from; a is {@code [CLS] a [SEP]}. */
  public enum PairFilter {
    ALL("all tokens"), A_A("a → a"), A_B("a → b"), B_A("b → a"), B_B("b → b");

    private final String label;

    PairFilter(String label) {
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /** Builds the matrix; a pair filter on a single sentence shows all tokens. */
  public static HeadMatrix of(AttentionTrace t, Head h, Display display, PairFilter filter) {
    return of(t, h, display, filter, false);
  }

  /** As above, over words when {@code words} ({@link #of(AttentionTrace, AttentionTrace, MapsShown, Head, Display, PairFilter, boolean)}). */
  public static HeadMatrix of(AttentionTrace t, Head h, Display display, PairFilter filter, boolean words) {
    return cut(t, h, display, filter, full(t, h, display), MapsShown.INTACT, words);
  }

  /**
   * The matrix of the maps chosen: {@code intact}'s, {@code asRun}'s (the trace with heads switched
   * off), or the difference as run − intact cell by cell (of the chosen quantity, after the norm
   * weighting), whose {@code max} is the largest magnitude.
   */
  public static HeadMatrix of(AttentionTrace intact, AttentionTrace asRun, MapsShown maps, Head h, Display display,
      PairFilter filter) {
    return of(intact, asRun, maps, h, display, filter, false);
  }

  /**
   * As above; with {@code words}, the map of the chosen quantity goes through Clark's word-level
   * conversion (to a word: sum over its pieces; from a word: mean) with words grouped at the typed
   * text's {@code ##} pieces, and the axes name words. The conversion is linear, so the difference of
   * word maps is the word map of the difference.
   */
  public static HeadMatrix of(AttentionTrace intact, AttentionTrace asRun, MapsShown maps, Head h, Display display,
      PairFilter filter, boolean words) {
    return switch (maps) {
      case INTACT -> of(intact, h, display, filter, words);
      case AS_RUN -> cut(asRun, h, display, filter, full(asRun, h, display), MapsShown.AS_RUN, words);
      case DIFFERENCE -> {
        float[][] a = full(asRun, h, display);
        float[][] b = full(intact, h, display);
        float[][] d = new float[a.length][];
        for (int i = 0; i < a.length; i++) {
          d[i] = new float[a[i].length];
          for (int j = 0; j < a[i].length; j++) {
            d[i][j] = a[i][j] - b[i][j];
          }
        }
        yield cut(asRun, h, display, filter, d, MapsShown.DIFFERENCE, words);
      }
    };
  }

  private static float[][] full(AttentionTrace t, Head h, Display display) {
    return switch (display) {
      case NORMS -> normWeighted(t.map(h), t.valueNorms()[h.layer()][h.head()]);
      // a trace made without layer maps shows the weights rather than nothing
      case LAYER_NORMS -> t.layerNorms() != null ? t.layerNorms()[h.layer()] : t.map(h);
      case ROLLOUT -> RolloutCache.of(t)[h.layer()];
      case WEIGHTS -> t.map(h);
    };
  }

  private static HeadMatrix cut(AttentionTrace t, Head h, Display display, PairFilter filter, float[][] pieces,
      MapsShown maps, boolean words) {
    boolean signed = maps == MapsShown.DIFFERENCE;
    WordAttention.Words w = words ? WordAttention.of(t.tokens()) : null;
    float[][] full = w == null ? pieces : w.map(pieces);
    List<String> tokens = w == null ? t.tokens() : w.words();
    int n = full.length;
    int b = w == null ? t.encoding().secondStart() : WordTrace.secondStart(w, t.encoding().secondStart());
    PairFilter f = b < 0 ? PairFilter.ALL : filter;
    int r0 = 0, r1 = n, c0 = 0, c1 = n;
    switch (f) {
      case A_A -> { r1 = b; c1 = b; }
      case A_B -> { r1 = b; c0 = b; }
      case B_A -> { r0 = b; c1 = b; }
      case B_B -> { r0 = b; c0 = b; }
      default -> { }
    }
    float[][] v = new float[r1 - r0][c1 - c0];
    float max = 0;
    for (int i = r0; i < r1; i++) {
      for (int j = c0; j < c1; j++) {
        v[i - r0][j - c0] = full[i][j];
        max = Math.max(max, signed ? Math.abs(full[i][j]) : full[i][j]);
      }
    }
    return new HeadMatrix(h, display, f, v, tokens.subList(r0, r1), tokens.subList(c0, c1), r0, c0, max, maps,
        words);
  }

  /**
   * Kobayashi's norm-weighted attention, row-normalised: {@code N_ij = A_ij ||f(x_j)|| / sum_j (...)},
   * so a row still sums to 1 and can be read beside the weights.
   */
  public static float[][] normWeighted(float[][] a, float[] norms) {
    float[][] out = new float[a.length][];
    for (int i = 0; i < a.length; i++) {
      out[i] = new float[a[i].length];
      double sum = 0;
      for (int j = 0; j < a[i].length; j++) {
        out[i][j] = a[i][j] * norms[j];
        sum += out[i][j];
      }
      for (int j = 0; j < a[i].length && sum > 0; j++) {
        out[i][j] = (float) (out[i][j] / sum);
      }
    }
    return out;
  }

  public int rows() {
    return values.length;
  }

  public int cols() {
    return values.length == 0 ? 0 : values[0].length;
  }

  /** The status line for the cell under the pointer, with both tokens named (indices into the input). */
  public String describe(int row, int col) {
    if (row < 0 || col < 0 || row >= rows() || col >= cols()) {
      return "";
    }
    String q = words ? "query word" : "query";
    String k = words ? "key word" : "key";
    return String.format(java.util.Locale.ROOT, signed() ? "%s  " + q + " %d \"%s\" → " + k + " %d \"%s\": %+.4f as run − intact"
        : "%s  " + q + " %d \"%s\" → " + k + " %d \"%s\": %.4f",
        head, rowOffset + row, rowTokens.get(row), colOffset + col, colTokens.get(col), values[row][col]);
  }
}
