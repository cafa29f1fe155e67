package io.headscope.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.core.Linear;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

/**
 * {@code ./headscope bench kernels}: a fingerprint of the bits the engine's kernels produce in this process,
 * to show that the test suite's second numerics leg ({@code ./headscope test avx2}) really runs other code
 * paths than the first: the same inputs, hashed outputs of a matrix product (MKL: one row alone and in a
 * batch of 300, and whether those agree, which is what the batch-invariant paths of the engine ask), and of
 * libtorch's vectorised elementwise kernels (exp, tanh, the erf GELU, softmax), whose AVX-512 and AVX2
 * builds round differently. Run it once under each leg's environment and compare the lines.
 */
public final class KernelFingerprint {
  private KernelFingerprint() {}

  public static void main(String[] args) throws Exception {
    Random rng = new Random(17);
    int in = 3072;
    int out = 768;
    int rows = 300;
    float[] w = gaussian(rng, out * in);
    float[] x = gaussian(rng, rows * in);
    System.out.println("env: ATEN_CPU_CAPABILITY=" + System.getenv("ATEN_CPU_CAPABILITY") + " MKL_ENABLE_INSTRUCTIONS="
        + System.getenv("MKL_ENABLE_INSTRUCTIONS") + " MKL_CBWR=" + System.getenv("MKL_CBWR"));
    try (NDManager m = NDManager.newBaseManager()) {
      NDArray weight = m.create(w, new Shape(out, in));
      NDArray all = m.create(x, new Shape(rows, in));
      float[] alone = Linear.linear(all.get("0:1"), weight, null).singletonOrThrow().toFloatArray();
      float[] batch = Linear.linear(all, weight, null).singletonOrThrow().get("0").toFloatArray();
      System.out.println("matmul row 0 alone      " + hash(alone));
      System.out.println("matmul row 0 in 300     " + hash(batch) + (java.util.Arrays.equals(alone, batch)
          ? "  (same bits: batch-invariant)" : "  (other bits: not batch-invariant)"));
      NDArray v = m.create(gaussian(rng, 1 << 16), new Shape(1 << 16)).mul(3);
      System.out.println("exp                     " + hash(v.exp().toFloatArray()));
      System.out.println("tanh                    " + hash(v.tanh().toFloatArray()));
      System.out.println("gelu (erf)              " + hash(ai.djl.nn.Activation.gelu(v).toFloatArray()));
      System.out.println("softmax rows of 256     " + hash(v.reshape(256, 256).softmax(-1).toFloatArray()));
    }
  }

  private static float[] gaussian(Random rng, int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) rng.nextGaussian();
    }
    return a;
  }

  private static String hash(float[] a) throws Exception {
    ByteBuffer b = ByteBuffer.allocate(a.length * 4);
    for (float f : a) {
      b.putFloat(f);
    }
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b.array()), 0, 8);
  }
}
