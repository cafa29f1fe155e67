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
    int n = heads[0].length;
    double[][] a = new double[n][n];
    for (float[][] map : heads) {
      for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++) {
          a[j][i] += 0.5 * map[j][i] / heads.length;
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
