package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Squared token-to-token Jacobian norms of one layer, {@code S[j][i] = ||d y_j / d x_i||_F^2} for the
 * layer's input x (T, d) and output y, by reverse-mode autograd (libtorch's) through the layer's equations
 * as {@link BertEncoder#layerAtTokens} writes them for one output token per replica (head masks
 * attached to the hooks act as in a run; the finite-difference test compares with the full layer).
 *
 * <p>A vector-Jacobian product with a cotangent u placed at output token j gives, at every input token
 * i at once, {@code u^T J_ji}. The input is replicated along the batch dimension and each replica b gets
 * its own output token {@code j_b} and cotangent {@code u_b}; one backward of {@code sum_b <y_b, u_b>} then
 * gives all the products of a chunk, because the replicas do not interact. Then
 * {@code ||J_ji||_F^2 = sum_c ||e_c^T J_ji||^2} (exact: u = every unit vector e_c, c = 1..d, so T d
 * cotangents) or {@code E_v ||v^T J_ji||^2} with {@code v ~ N(0, I_d)} (estimate: k Gaussian vectors per
 * j, so T k cotangents; unbiased for the squared norm because {@code E[v v^T] = I}).
 */
final class LayerJacobian {
  /**
   * Replicas x tokens per backward pass: bounds the native memory of one chunk's graph (in bert-base
   * about 40 kB of keys, values, their gradients and the input per token row, so some 160 MB, plus the
   * per-replica query row and feed-forward).
   */
  static final int TOKEN_ROWS_PER_PASS = 4096;

  private final BertEncoder encoder;
  private final GradientCollector collector;
  private final Hooks hooks;
  private final NDArray scoreMask;

  LayerJacobian(BertEncoder encoder, GradientCollector collector, Hooks hooks, NDArray scoreMask) {
    this.encoder = encoder;
    this.collector = collector;
    this.hooks = hooks;
    this.scoreMask = scoreMask;
  }

  /** Cotangents in flight for one layer, and how many each chunk takes. */
  static int chunk(int tokens) {
    return Math.max(1, TOKEN_ROWS_PER_PASS / tokens);
  }

  /**
   * {@code S[j][i]} for layer {@code l} at its input {@code x} (1, T, d).
   *
   * @param samples 0 exact, else k projection vectors per output token, drawn from {@code rng}
   * @param done called with the number of cotangents finished after each chunk
   */
  double[][] squaredNorms(int l, NDArray x, int samples, Random rng, BooleanSupplier cancelled,
      java.util.function.IntConsumer done) {
    int t = Math.toIntExact(x.getShape().get(1));
    int d = Math.toIntExact(x.getShape().get(2));
    int perToken = samples == 0 ? d : samples;
    int total = t * perToken;
    int chunk = chunk(t);
    double[][] s = new double[t][t];
    for (int first = 0; first < total; first += chunk) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("Jacobian cancelled");
      }
      int b = Math.min(chunk, total - first);
      // cotangent row r of the whole layer is (token j = r / perToken, direction r % perToken)
      float[] cot = new float[b * d];
      float[] pick = new float[b * t];
      for (int k = 0; k < b; k++) {
        int r = first + k;
        pick[k * t + r / perToken] = 1f;
        if (samples == 0) {
          cot[k * d + r % perToken] = 1f;
        } else {
          for (int c = 0; c < d; c++) {
            cot[k * d + c] = (float) rng.nextGaussian();
          }
        }
      }
      float[] sq;
      try (NDManager scope = x.getManager().newSubManager()) {
        x.tempAttach(scope); // back to its manager when the chunk's scope closes
        NDArray leaf = x.repeat(0, b); // (b, T, d): one replica per cotangent
        leaf.setRequiresGradient(true);
        NDArray y = encoder.layerAtTokens(l, leaf, scope.create(pick, new Shape(b, 1, t)), scoreMask, hooks); // (b, 1, d)
        NDArray u = scope.create(cot, new Shape(b, 1, d));
        collector.backward(y.mul(u).sum()); // the gradient of sum_b <y_b, u_b>
        try (NDArray g = leaf.getGradient()) {
          sq = g.square().sum(new int[] {2}).toFloatArray(); // (b, T): ||u_b^T J_{j_b, i}||^2
        }
      }
      double weight = samples == 0 ? 1.0 : 1.0 / samples;
      for (int k = 0; k < b; k++) {
        int j = (first + k) / perToken;
        for (int i = 0; i < t; i++) {
          s[j][i] += weight * sq[k * t + i];
        }
      }
      done.accept(b);
    }
    return s;
  }
}
