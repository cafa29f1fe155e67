package io.headscope.analysis.flow;

/**
 * Attention rollout (Abnar & Zuidema 2020): the layers' attention composed with the residual path.
 * {@code Ahat_l = 0.5 * mean_h A^(l,h) + 0.5 * I}, rows renormalised; {@code R_1 = Ahat_1},
 * {@code R_l = Ahat_l R_(l-1)}. {@code R_l[j][i]} is the share of output token j at layer l that comes
 * from input token i. The maps should be those the model ran (switched-off heads as switched off), so
 * a rollout with heads off is honest.
 */
public final class Rollout {
  private Rollout() {}

  /** {@code Ahat_l} of one layer from its heads' maps {@code [head][query][key]}. */
  public static double[][] mixed(float[][][] heads) {
    return mixed(heads.length, h -> heads[h]);
  }

  /**
   * {@code Ahat_l} of one layer whose {@code count} heads' maps come one at a time (a trace of summaries recomputes
   * each on demand, so only one head's map is held at once); the same sums in the same order as {@link
   * #mixed(float[][][])}.
   */
  public static double[][] mixed(int count, java.util.function.IntFunction<float[][]> head) {
    double[][] a = null;
    int n = 0;
    for (int h = 0; h < count; h++) {
      float[][] map = head.apply(h);
      if (a == null) {
        n = map.length;
        a = new double[n][n];
      }
      for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++) {
          a[j][i] += 0.5 * map[j][i] / count;
        }
      }
    }
    for (int j = 0; j < n; j++) {
      a[j][j] += 0.5;
      double sum = 0;
      for (double v : a[j]) {
        sum += v;
      }
      for (int i = 0; i < n; i++) {
        a[j][i] /= sum; // a head switched off in zero mode leaves a row short of 1
      }
    }
    return a;
  }

  /** {@code R_l} for every layer l = 1..L (index l - 1), from the maps {@code [layer][head][query][key]}. */
  public static double[][][] of(float[][][][] attention) {
    int layers = attention.length;
    double[][][] r = new double[layers][][];
    for (int l = 0; l < layers; l++) {
      double[][] a = mixed(attention[l]);
      r[l] = l == 0 ? a : multiply(a, r[l - 1]);
    }
    return r;
  }

  /**
   * {@code R_l} for every layer of a trace, full or of summaries: a trace of summaries gives each head's map on
   * demand ({@link io.headscope.model.AttentionTrace#map}), the same numbers a full trace holds, so the rollout is
   * the full trace's.
   */
  public static double[][][] of(io.headscope.model.AttentionTrace t) {
    if (t.hasFullMaps()) {
      return of(t.attention());
    }
    requireAsRun(t);
    double[][][] r = new double[t.layers()][][];
    for (int l = 0; l < r.length; l++) {
      int layer = l;
      double[][] a = mixed(t.heads(), h -> t.map(new io.headscope.model.core.Head(layer, h)));
      r[l] = l == 0 ? a : multiply(a, r[l - 1]);
    }
    return r;
  }

  /**
   * A trace of summaries keeps each switched-off head's map as it computed it, not as it ran (zeros, or even
   * rows), and a rollout with heads off is honest only on the maps as run: refused in one line.
   */
  static void requireAsRun(io.headscope.model.AttentionTrace t) {
    if (!t.hasFullMaps() && !t.mask().isEmpty()) {
      throw new io.headscope.model.core.HeadScopeException("Rollout and flow with heads switched off read the maps as "
          + "run, and this input's maps are kept as summaries of what each head computed: switch the heads on, or "
          + "shorten the input.");
    }
  }

  static double[][] multiply(double[][] a, double[][] b) {
    int n = a.length;
    double[][] out = new double[n][n];
    for (int j = 0; j < n; j++) {
      for (int k = 0; k < n; k++) {
        double ajk = a[j][k];
        if (ajk == 0) {
          continue;
        }
        for (int i = 0; i < n; i++) {
          out[j][i] += ajk * b[k][i];
        }
      }
    }
    return out;
  }
}
