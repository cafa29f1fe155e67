package io.headscope.analysis.favor;

import java.util.Random;

/**
 * The random directions {@code w_r} of Performer's positive random features (Choromanski et al. 2020):
 * orthogonal random features (ORF: blocks of {@code dh} orthogonal directions from the QR of a
 * Gaussian matrix, each direction's length drawn as the norm of a Gaussian vector, as Performer's
 * {@code gaussian_orthogonal_random_matrix}) or iid Gaussian directions.
 */
public final class RandomFeatures {
  /** How the directions are drawn. */
  public enum Kind {
    ORF("orf", "ORF"),
    IID("iid", "iid");

    private final String label;
    private final String title;

    Kind(String label, String title) {
      this.label = label;
      this.title = title;
    }

    /** As the CSV and the command line write it. */
    public String label() {
      return label;
    }

    /** As a person reads it in a title or a status line. */
    public String title() {
      return title;
    }
  }

  private RandomFeatures() {}

  /** {@code m} directions in {@code dh} dimensions, {@code [r][dh]}, drawn from {@code random}. */
  public static double[][] draw(Kind kind, int m, int dh, Random random) {
    double[][] w = new double[m][dh];
    if (kind == Kind.IID) {
      for (double[] row : w) {
        for (int i = 0; i < dh; i++) {
          row[i] = random.nextGaussian();
        }
      }
      return w;
    }
    for (int start = 0; start < m; start += dh) {
      double[][] q = orthonormalRows(dh, random);
      for (int r = start; r < Math.min(m, start + dh); r++) {
        double length = 0;
        for (int i = 0; i < dh; i++) {
          double g = random.nextGaussian();
          length += g * g;
        }
        length = Math.sqrt(length); // the norm of a Gaussian vector: as long as an iid direction would be
        for (int i = 0; i < dh; i++) {
          w[r][i] = q[r - start][i] * length;
        }
      }
    }
    return w;
  }

  /** {@code n} orthonormal rows: modified Gram-Schmidt on a Gaussian matrix (a QR factorisation's Q). */
  static double[][] orthonormalRows(int n, Random random) {
    double[][] a = new double[n][n];
    for (double[] row : a) {
      for (int i = 0; i < n; i++) {
        row[i] = random.nextGaussian();
      }
    }
    for (int r = 0; r < n; r++) {
      for (int s = 0; s < r; s++) {
        double dot = 0;
        for (int i = 0; i < n; i++) {
          dot += a[r][i] * a[s][i];
        }
        for (int i = 0; i < n; i++) {
          a[r][i] -= dot * a[s][i];
        }
      }
      double norm = 0;
      for (int i = 0; i < n; i++) {
        norm += a[r][i] * a[r][i];
      }
      norm = Math.sqrt(norm);
      for (int i = 0; i < n; i++) {
        a[r][i] /= norm;
      }
    }
    return a;
  }

  /** A fixed seed per (layer, head, draw, kind), so results repeat and do not depend on what else ran. */
  public static long seed(long base, int layer, int head, int draw, Kind kind) {
    long h = base * 0x9E3779B97F4A7C15L;
    h = (h ^ layer) * 0xBF58476D1CE4E5B9L;
    h = (h ^ head) * 0x94D049BB133111EBL;
    h = (h ^ draw) * 0x9E3779B97F4A7C15L;
    return h ^ kind.ordinal();
  }
}
