package io.headscope.analysis.favor;

/**
 * FAVOR+ attention of one head (Choromanski et al. 2020), as METHODS.md defines it: queries and keys
 * scaled by {@code dh^(-1/4)} (so that {@code q.k} is the softmax's {@code q.k / sqrt(dh)}); positive
 * features {@code phi(x) = exp(w_r.x - |x|^2/2) / sqrt(m)}; {@code Ahat = D^-1 phi(Q) phi(K)^T}, rows
 * normalised, padding keys excluded. A causal model (GPT-2) gets the Performer's unidirectional form:
 * query i sums over keys {@code j <= i} only (the paper's prefix sums of {@code phi(k_j) v_j^T}; here the
 * map is materialised, so the same sums appear as a lower-triangular {@code phi(Q) phi(K)^T} normalised by
 * rows). For numerical stability each row of {@code w.x} has its maximum
 * subtracted before the exponential: for queries the factor cancels in the row normalisation, for keys
 * one maximum over all keys and features is used, which cancels too.
 */
public final class Favor {
  private Favor() {}

  /**
   * The FAVOR+ map of one head.
   *
   * @param q queries {@code [n][dh]} as the model computed them (unscaled)
   * @param k keys {@code [n][dh]}
   * @param w the directions {@code [m][dh]} ({@link RandomFeatures#draw})
   */
  public static double[][] map(float[][] q, float[][] k, double[][] w) {
    return map(q, k, w, false);
  }

  /** {@link #map}, causal when {@code causal}: query i sees keys {@code 0..i} only. */
  public static double[][] map(float[][] q, float[][] k, double[][] w, boolean causal) {
    int n = q.length;
    int m = w.length;
    int dh = q[0].length;
    double scale = Math.pow(dh, -0.25);
    double[][] fq = features(q, w, scale, true);
    double[][] fk = features(k, w, scale, false);
    double[][] a = new double[n][n];
    for (int i = 0; i < n; i++) {
      double sum = 0;
      int last = causal ? i : n - 1;
      for (int j = 0; j <= last; j++) {
        double dot = 0;
        for (int r = 0; r < m; r++) {
          dot += fq[i][r] * fk[j][r];
        }
        a[i][j] = dot;
        sum += dot;
      }
      for (int j = 0; j <= last; j++) {
        a[i][j] /= sum;
      }
    }
    return a;
  }

  /**
   * {@code phi(x)} for every row, up to a factor that cancels in the row normalisation: queries lose
   * their own row's maximum of {@code w.x} (a factor per row of Ahat), keys one maximum over all keys
   * and features (a factor for the whole map). Each key keeps its own {@code -|k|^2/2}.
   */
  static double[][] features(float[][] x, double[][] w, double scale, boolean query) {
    int n = x.length;
    int m = w.length;
    double[][] exponent = new double[n][m]; // w.x - |x|^2 / 2
    double globalMax = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      double norm = 0;
      for (float v : x[i]) {
        norm += (v * scale) * (v * scale);
      }
      for (int r = 0; r < m; r++) {
        double dot = 0;
        for (int c = 0; c < x[i].length; c++) {
          dot += w[r][c] * x[i][c] * scale;
        }
        exponent[i][r] = dot - norm / 2;
        globalMax = Math.max(globalMax, exponent[i][r]);
      }
    }
    double[][] phi = new double[n][m];
    double root = Math.sqrt(m);
    for (int i = 0; i < n; i++) {
      double shift = globalMax;
      if (query) {
        shift = Double.NEGATIVE_INFINITY;
        for (int r = 0; r < m; r++) {
          shift = Math.max(shift, exponent[i][r]);
        }
      }
      for (int r = 0; r < m; r++) {
        phi[i][r] = Math.exp(exponent[i][r] - shift) / root;
      }
    }
    return phi;
  }

  /**
   * The unstabilised kernel estimate {@code phi(q).phi(k)} of {@code exp(q.k)} for already scaled
   * vectors: unbiased over the draw of {@code w} (each direction is marginally Gaussian, also in ORF).
   */
  public static double kernel(double[] q, double[] k, double[][] w) {
    double qq = 0;
    double kk = 0;
    for (int c = 0; c < q.length; c++) {
      qq += q[c] * q[c];
      kk += k[c] * k[c];
    }
    double sum = 0;
    for (double[] wr : w) {
      double wq = 0;
      double wk = 0;
      for (int c = 0; c < q.length; c++) {
        wq += wr[c] * q[c];
        wk += wr[c] * k[c];
      }
      sum += Math.exp(wq - qq / 2) * Math.exp(wk - kk / 2);
    }
    return sum / w.length;
  }

  /** Mean over rows of the total-variation distance {@code 0.5 * sum_j |A_ij - Ahat_ij|}. */
  public static double error(float[][] exact, double[][] approx) {
    double total = 0;
    for (int i = 0; i < exact.length; i++) {
      double tv = 0;
      for (int j = 0; j < exact[i].length; j++) {
        tv += Math.abs(exact[i][j] - approx[i][j]);
      }
      total += 0.5 * tv;
    }
    return total / exact.length;
  }
}
