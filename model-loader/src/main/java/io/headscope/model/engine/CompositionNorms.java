package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Squared Frobenius norms of products of heads' weight matrices, what Elhage et al.'s composition scores
 * divide: {@code ||A||^2} of every head's {@code A = W_V W_O}, {@code ||B||^2} of its {@code W_Q W_K^T}, and
 * {@code ||A_1 B_2||^2} for every sender head 1 in a layer before receiver head 2, with {@code B_2}
 * {@code W_Q W_K^T} (Q), {@code W_K W_Q^T} (K) or {@code W_V W_O} (V) of head 2.
 *
 * <p>No d x d product is formed per pair. With {@code W = U R} (U orthonormal columns, {@code R^T R = W^T W}
 * the dh x dh Gram matrix, R its Cholesky factor) the Frobenius norm forgets U:
 * {@code ||W_V1 W_O1 W_Q2 W_K2^T|| = ||R_V1 W_O1 W_Q2 R_K2^T||}, a dh x dh matrix. So each sender becomes one
 * (dh, d) factor {@code P = R_V W_O}, each receiver one (d, dh) factor per mode ({@code W_Q R_K^T},
 * {@code W_K R_Q^T}, {@code W_V R_O^T} with {@code R_O^T R_O = W_O W_O^T}), and the scores of all pairs are
 * the sums of squares of the dh x dh blocks of one product per receiver layer: the senders of every
 * earlier layer stacked (l H dh, d) times the receivers' factors (d, modes H dh). Sums of squares, so no
 * cancellation: float32 products, the norms accumulated in double.
 *
 * @param ov {@code [layer][head]} {@code ||W_V W_O||_F^2}
 * @param qk {@code [layer][head]} {@code ||W_Q W_K^T||_F^2}
 * @param pairs per mode asked for, {@code [l1][h1][l2][h2]} {@code ||A_1 B_2||_F^2}, 0 where {@code l1 >= l2}
 */
public record CompositionNorms(int layers, int heads, double[][] ov, double[][] qk, Map<Mode, double[][][][]> pairs) {

  /** Which of the receiver's matrices the sender's output is read by. */
  public enum Mode {
    /** The receiver's queries: {@code B = W_Q W_K^T}. */
    Q,
    /** Its keys: {@code B = W_K W_Q^T}. */
    K,
    /** Its values: {@code B = W_V W_O}. */
    V
  }

  public CompositionNorms {
    pairs = Map.copyOf(pairs);
  }

  static CompositionNorms compute(NDManager parent, HeadWeights w, Set<Mode> modes) {
    int layers = w.layers();
    int h = w.heads();
    int d = w.hidden();
    int r = w.headSize();
    List<Mode> asked = modes.stream().sorted().toList();
    double[][] ov = new double[layers][h];
    double[][] qk = new double[layers][h];
    Map<Mode, double[][][][]> pairs = new EnumMap<>(Mode.class);
    for (Mode m : asked) {
      pairs.put(m, new double[layers][h][layers][h]);
    }
    try (NDManager scope = parent.newSubManager()) {
      NDArray[] senders = new NDArray[layers]; // (H dh, d)
      NDArray[] receivers = new NDArray[layers]; // (d, modes H dh)
      for (int l = 0; l < layers; l++) {
        try (NDManager layer = scope.newSubManager()) {
          NDArray q = layer.create(w.q()[l], new Shape(h, d, r));
          NDArray k = layer.create(w.k()[l], new Shape(h, d, r));
          NDArray v = layer.create(w.v()[l], new Shape(h, d, r));
          NDArray o = layer.create(w.o()[l], new Shape(h, r, d));
          // the four Gram matrices of every head, (4, H, dh, dh): W_Q^T W_Q, W_K^T W_K, W_V^T W_V, W_O W_O^T
          float[] grams = NDArrays.stack(new NDList(gram(q), gram(k), gram(v), o.matMul(o.transpose(0, 2, 1))))
              .toFloatArray();
          double[][][] rq = new double[h][][];
          double[][][] rk = new double[h][][];
          float[] rv = new float[h * r * r];
          float[] rkT = new float[h * r * r];
          float[] rqT = new float[h * r * r];
          float[] roT = new float[h * r * r];
          for (int i = 0; i < h; i++) {
            rq[i] = choleskyUpper(grams, (0 * h + i) * r * r, r);
            rk[i] = choleskyUpper(grams, (h + i) * r * r, r);
            double[][] rvi = choleskyUpper(grams, (2 * h + i) * r * r, r);
            double[][] roi = choleskyUpper(grams, (3 * h + i) * r * r, r);
            put(rv, i, rvi, false);
            put(rkT, i, rk[i], true);
            put(rqT, i, rq[i], true);
            put(roT, i, roi, true);
            qk[l][i] = productSquares(rq[i], rk[i]);
          }
          NDArray p = layer.create(rv, new Shape(h, r, r)).matMul(o); // (H, dh, d): R_V W_O
          ov[l] = toDouble(p.square().sum(new int[] {1, 2}).toFloatArray());
          senders[l] = p.reshape(h * r, d);
          senders[l].attach(scope);
          NDList right = new NDList();
          for (Mode m : asked) {
            NDArray f = switch (m) {
              case Q -> q.matMul(layer.create(rkT, new Shape(h, r, r))); // (H, d, dh): W_Q R_K^T
              case K -> k.matMul(layer.create(rqT, new Shape(h, r, r)));
              case V -> v.matMul(layer.create(roT, new Shape(h, r, r)));
            };
            right.add(f.transpose(1, 0, 2).reshape(d, h * r)); // (d, H dh)
          }
          receivers[l] = NDArrays.concat(right, 1); // (d, modes H dh)
          receivers[l].attach(scope);
        }
      }
      for (int l2 = 1; l2 < layers; l2++) {
        try (NDManager step = scope.newSubManager()) {
          NDList left = new NDList();
          for (int l1 = 0; l1 < l2; l1++) {
            left.add(senders[l1]);
          }
          NDArray stacked = NDArrays.concat(left, 0); // (l2 H dh, d)
          stacked.attach(step);
          NDArray prod = stacked.matMul(receivers[l2]); // (l2 H dh, modes H dh)
          float[] s = prod.reshape(l2 * h, r, asked.size() * h, r).square().sum(new int[] {1, 3}).toFloatArray();
          for (int l1 = 0; l1 < l2; l1++) {
            for (int i = 0; i < h; i++) {
              for (int mi = 0; mi < asked.size(); mi++) {
                double[] row = pairs.get(asked.get(mi))[l1][i][l2];
                for (int j = 0; j < h; j++) {
                  row[j] = s[(l1 * h + i) * asked.size() * h + mi * h + j];
                }
              }
            }
          }
        }
      }
    }
    return new CompositionNorms(layers, h, ov, qk, pairs);
  }

  private static NDArray gram(NDArray w) {
    return w.transpose(0, 2, 1).matMul(w); // (H, dh, d) x (H, d, dh)
  }

  /** {@code ||R_a R_b^T||_F^2} in double. */
  private static double productSquares(double[][] a, double[][] b) {
    int r = a.length;
    double sum = 0;
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < r; j++) {
        double x = 0;
        for (int t = 0; t < r; t++) {
          x += a[i][t] * b[j][t];
        }
        sum += x * x;
      }
    }
    return sum;
  }

  private static void put(float[] to, int head, double[][] m, boolean transpose) {
    int r = m.length;
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < r; j++) {
        to[head * r * r + i * r + j] = (float) (transpose ? m[j][i] : m[i][j]);
      }
    }
  }

  private static double[] toDouble(float[] a) {
    double[] out = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i];
    }
    return out;
  }

  /**
   * An upper-triangular R with {@code R^T R = G}, G the (r, r) positive semi-definite matrix at
   * {@code offset} (made symmetric from its upper half). A pivot that is not above the rounding of the
   * diagonal (a head whose weights are zero or of lower rank) gets a zero row: the semi-definite
   * factorisation, which still gives {@code R^T R = G} to rounding.
   */
  static double[][] choleskyUpper(float[] g, int offset, int r) {
    double[][] a = new double[r][r];
    double maxDiag = 0;
    for (int i = 0; i < r; i++) {
      for (int j = i; j < r; j++) {
        a[i][j] = g[offset + i * r + j];
      }
      maxDiag = Math.max(maxDiag, a[i][i]);
    }
    double floor = maxDiag * r * 1e-6; // the float32 Gram's own rounding
    double[][] u = new double[r][r];
    for (int i = 0; i < r; i++) {
      double pivot = a[i][i];
      for (int t = 0; t < i; t++) {
        pivot -= u[t][i] * u[t][i];
      }
      if (pivot <= floor) {
        continue; // row i stays zero
      }
      double root = Math.sqrt(pivot);
      u[i][i] = root;
      for (int j = i + 1; j < r; j++) {
        double x = a[i][j];
        for (int t = 0; t < i; t++) {
          x -= u[t][i] * u[t][j];
        }
        u[i][j] = x / root;
      }
    }
    return u;
  }
}
