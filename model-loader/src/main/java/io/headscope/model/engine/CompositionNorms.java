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
 * {@code W_K R_Q^T}, {@code W_V R_O^T} with {@code R_O^T R_O = W_O W_O^T}), and a pair's norm is
 * {@code ||P F||_F^2}. By default ({@link Method#GRAM}) that is read as {@code <P^T P, F F^T>}: every head's
 * d x d Gram matrix formed once, a dot product of about d^2/2 per pair (a tenth of a dh x d x dh product at
 * bert-base's shapes); where those vectors would not fit in memory ({@link #GRAM_BYTES}), as the sums of
 * squares of the dh x dh blocks of one product per receiver layer ({@link Method#CROSS}). Float32 products,
 * the norms accumulated in double; both agree on bert-base to 3e-8 in the score.
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

  /** One layer's heads' matrices as tensors: q, k, v (H, d, dh) and o (H, dh, d), in {@code m}. */
  interface LayerSource {
    NDArray[] layer(NDManager m, int l);
  }

  /** How the pair norms are summed (both exact; the test checks each against the full products). */
  enum Method {
    /** Through {@code <A_1^T A_1, B_2 B_2^T>}: d^2/2 per pair; memory grows as senders x d^2 (the default). */
    GRAM,
    /** Through the dh x dh blocks of one product: dh^2 d per pair (for widths whose Gram vectors would not fit). */
    CROSS
  }

  /** The senders' Gram vectors may take this much native memory before {@link Method#CROSS} is used instead. */
  static final long GRAM_BYTES = 1L << 30;

  static CompositionNorms compute(NDManager parent, HeadWeights w, Set<Mode> modes) {
    return compute(parent, w.layers(), w.heads(), w.hidden(), w.headSize(), fromHeadWeights(w), modes, null, 0);
  }

  static LayerSource fromHeadWeights(HeadWeights w) {
    int h = w.heads();
    int d = w.hidden();
    int r = w.headSize();
    return (m, l) -> new NDArray[] {m.create(w.q()[l], new Shape(h, d, r)), m.create(w.k()[l], new Shape(h, d, r)),
        m.create(w.v()[l], new Shape(h, d, r)), m.create(w.o()[l], new Shape(h, r, d))};
  }

  /**
   * @param method null for the default ({@link Method#GRAM} when its vectors fit {@link #GRAM_BYTES})
   * @param blocks the Gram method's diagonal blocks (0: the default, {@link #gramBlocks})
   */
  static CompositionNorms compute(NDManager parent, int layers, int h, int d, int r, LayerSource src, Set<Mode> modes,
      Method method, int blocks) {
    List<Mode> asked = modes.stream().sorted().toList();
    double[][] ov = new double[layers][h];
    double[][] qk = new double[layers][h];
    Map<Mode, double[][][][]> pairs = new EnumMap<>(Mode.class);
    for (Mode m : asked) {
      pairs.put(m, new double[layers][h][layers][h]);
    }
    int b = blocks > 0 ? blocks : gramBlocks(d);
    long gramBytes = 4L * Math.max(0, layers - 1) * h * gramLength(d, b);
    Method how = method != null ? method : gramBytes <= GRAM_BYTES ? Method.GRAM : Method.CROSS;
    try (NDManager scope = parent.newSubManager()) {
      NDArray[] senders = new NDArray[layers]; // (H, dh, d): R_V W_O
      NDArray[] receivers = new NDArray[layers]; // (modes H, d, dh)
      for (int l = 0; l < layers; l++) {
        try (NDManager layer = scope.newSubManager()) {
          NDArray[] qkvo = src.layer(layer, l);
          NDArray q = qkvo[0];
          NDArray k = qkvo[1];
          NDArray v = qkvo[2];
          NDArray o = qkvo[3];
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
          senders[l] = p;
          senders[l].attach(scope);
          NDList right = new NDList();
          for (Mode m : asked) {
            right.add(switch (m) {
              case Q -> q.matMul(layer.create(rkT, new Shape(h, r, r))); // (H, d, dh): W_Q R_K^T
              case K -> k.matMul(layer.create(rqT, new Shape(h, r, r)));
              case V -> v.matMul(layer.create(roT, new Shape(h, r, r)));
            });
          }
          receivers[l] = NDArrays.concat(right, 0); // (modes H, d, dh)
          receivers[l].attach(scope);
        }
      }
      if (how == Method.GRAM) {
        pairsByGram(scope, senders, receivers, b, asked, pairs);
      } else {
        pairsByCross(scope, senders, receivers, asked, pairs);
      }
    }
    return new CompositionNorms(layers, h, ov, qk, pairs);
  }

  /**
   * The diagonal blocks the Gram vectors are cut into: the smallest divisor of d whose block is at most 128
   * wide (a product that size runs near the machine's best), at least 2 where d is even so that the
   * off-diagonal weighting is always exercised.
   */
  static int gramBlocks(int d) {
    for (int n = d % 2 == 0 ? 2 : 1; n <= d; n++) {
      if (d % n == 0 && d / n <= 128) {
        return n;
      }
    }
    return 1;
  }

  /** The length of one Gram vector: the n(n+1)/2 blocks on and above the diagonal, (d/n)^2 each. */
  static long gramLength(int d, int n) {
    long w = d / n;
    return w * w * n * (n + 1) / 2;
  }

  /**
   * {@code ||P F||_F^2 = <P^T P, F F^T>}: each sender's (d, d) Gram matrix {@code P^T P} and each receiver's
   * {@code F F^T} are formed once (d^2 dh each, on the blocks on and above the diagonal only, as both are
   * symmetric: an off-diagonal block stands for its mirror too, so the senders' are doubled), and every pair
   * costs one dot product of about d^2/2 instead of a dh x d x dh product: a tenth of the work for bert-base.
   * Each block's dot products come out of one float32 product (length (d/n)^2) and are summed over blocks
   * in double.
   */
  private static void pairsByGram(NDManager scope, NDArray[] senders, NDArray[] receivers, int n, List<Mode> asked,
      Map<Mode, double[][][][]> pairs) {
    int layers = senders.length;
    if (layers < 2) {
      return;
    }
    int h = (int) senders[0].getShape().get(0);
    int d = (int) senders[0].getShape().get(2);
    int w = d / n;
    int mh = asked.size() * h;
    try (NDManager step = scope.newSubManager()) {
      NDList earlier = new NDList();
      for (int l = 0; l < layers - 1; l++) {
        earlier.add(senders[l]);
      }
      NDArray all = NDArrays.concat(earlier, 0); // ((layers-1) H, dh, d)
      all.attach(step);
      int ns = (int) all.getShape().get(0);
      List<NDArray> gs = new java.util.ArrayList<>(); // per block pair (i <= j): (senders, w^2)
      for (int i = 0; i < n; i++) {
        NDArray pi = all.get(":, :, " + i * w + ":" + (i + 1) * w).transpose(0, 2, 1); // (Ns, w, dh)
        for (int j = i; j < n; j++) {
          NDArray g = pi.matMul(all.get(":, :, " + j * w + ":" + (j + 1) * w)).reshape(ns, (long) w * w);
          gs.add(i < j ? g.mul(Scalars.of(g, 2f)) : g);
        }
      }
      for (int l2 = 1; l2 < layers; l2++) {
        try (NDManager rl = step.newSubManager()) {
          NDArray f = receivers[l2];
          double[] acc = new double[l2 * h * mh];
          int pair = 0;
          for (int i = 0; i < n; i++) {
            NDArray fi = f.get(":, " + i * w + ":" + (i + 1) * w + ", :"); // (MH, w, dh)
            fi.attach(rl);
            for (int j = i; j < n; j++) {
              NDArray fj = f.get(":, " + j * w + ":" + (j + 1) * w + ", :");
              fj.attach(rl);
              NDArray t = fi.matMul(fj.transpose(0, 2, 1)).reshape(mh, (long) w * w); // (MH, w^2)
              NDArray s = gs.get(pair++).get(":" + l2 * h); // (l2 H, w^2), the senders before l2
              s.attach(rl);
              float[] dots = s.matMul(t.transpose()).toFloatArray(); // (l2 H, MH)
              for (int x = 0; x < dots.length; x++) {
                acc[x] += dots[x];
              }
            }
          }
          for (int l1 = 0; l1 < l2; l1++) {
            for (int i = 0; i < h; i++) {
              for (int mi = 0; mi < asked.size(); mi++) {
                double[] row = pairs.get(asked.get(mi))[l1][i][l2];
                for (int j = 0; j < h; j++) {
                  row[j] = acc[(l1 * h + i) * mh + mi * h + j];
                }
              }
            }
          }
        }
      }
    }
  }

  /**
   * The sums of squares of the dh x dh blocks of one product per receiver layer: the senders of every
   * earlier layer stacked (l H dh, d) times the receivers' factors (d, modes H dh).
   */
  private static void pairsByCross(NDManager scope, NDArray[] senders, NDArray[] receivers, List<Mode> asked,
      Map<Mode, double[][][][]> pairs) {
    int layers = senders.length;
    for (int l2 = 1; l2 < layers; l2++) {
      try (NDManager step = scope.newSubManager()) {
        int h = (int) senders[0].getShape().get(0);
        int r = (int) senders[0].getShape().get(1);
        int d = (int) senders[0].getShape().get(2);
        NDList left = new NDList();
        for (int l1 = 0; l1 < l2; l1++) {
          left.add(senders[l1].reshape(h * r, d));
        }
        NDArray stacked = NDArrays.concat(left, 0); // (l2 H dh, d)
        stacked.attach(step);
        NDArray right = receivers[l2].transpose(1, 0, 2).reshape(d, (long) asked.size() * h * r); // (d, modes H dh)
        right.attach(step);
        NDArray prod = stacked.matMul(right); // (l2 H dh, modes H dh)
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
