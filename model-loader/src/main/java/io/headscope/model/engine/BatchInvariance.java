package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.core.Linear;
import java.util.Arrays;
import java.util.Random;

/**
 * Whether this process's matrix products give each row the same bits whatever else shares the call.
 *
 * <p>Then an input's maps, norms and predictions are bit-identical alone, in a batch of inputs of its
 * length, or in a shard of a corpus, and the sweeps may batch such inputs without changing a byte of
 * their output (padding is not covered: a softmax over a padded row sums its zeros in another order). libtorch's x86 build multiplies with MKL, whose default mode picks its algorithm
 * (how a long sum is split across threads, a matrix-vector kernel for one row) by the shape of the
 * call; its strict reproducible mode ({@code MKL_CBWR=AUTO,STRICT}, set by {@code ./headscope} and the
 * build) does not. That mode exists only on MKL's AVX2 and AVX-512 branches, which MKL takes on Intel
 * CPUs only: on an AMD CPU the products are not invariant whatever {@code MKL_CBWR} says, and other builds
 * (Apple silicon) may or may not be. So it is measured rather than assumed: a product shaped like the
 * feed-forward output (the one whose sum, over 3072 terms, the default mode splits) run on 1, 3, 100 and
 * 300 rows, row 0 compared bit for bit. Where it fails the sweeps run one input at a time.
 */
final class BatchInvariance {
  private static volatile Boolean measured;

  private BatchInvariance() {}

  static boolean holds(NDManager parent) {
    Boolean m = measured;
    if (m == null) {
      synchronized (BatchInvariance.class) {
        if (measured == null) {
          measured = measure(parent);
        }
        m = measured;
      }
    }
    return m;
  }

  private static boolean measure(NDManager parent) {
    int in = 3072;
    int out = 768;
    int rows = 300;
    Random rng = new Random(17);
    float[] w = new float[out * in];
    float[] x = new float[rows * in];
    for (int i = 0; i < w.length; i++) {
      w[i] = (float) rng.nextGaussian();
    }
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) rng.nextGaussian();
    }
    try (NDManager scope = parent.newSubManager()) {
      NDArray weight = scope.create(w, new Shape(out, in));
      NDArray all = scope.create(x, new Shape(rows, in));
      float[] reference = firstRow(all.get("0:1"), weight);
      return Arrays.equals(reference, firstRow(all.get("0:3"), weight))
          && Arrays.equals(reference, firstRow(all.get("0:100"), weight))
          && Arrays.equals(reference, firstRow(all, weight));
    }
  }

  private static float[] firstRow(NDArray x, NDArray weight) {
    return Linear.linear(x, weight, null).singletonOrThrow().get("0").toFloatArray();
  }
}
