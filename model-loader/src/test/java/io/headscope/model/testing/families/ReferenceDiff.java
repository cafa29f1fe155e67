package io.headscope.model.testing.families;

/**
 * Largest absolute differences between the reference's doubles and an engine's floats, for parity
 * tests: {@code assertThat(ReferenceDiff.maxAbs(ref.attention(), trace.attention())).isLessThan(1e-5)}.
 * Fails on a shape mismatch rather than comparing a prefix.
 */
public final class ReferenceDiff {
  private ReferenceDiff() {}

  /** {@code [layer][head][query][key]} maps. */
  public static double maxAbs(double[][][][] reference, float[][][][] engine) {
    check(reference.length, engine.length, "layers");
    double max = 0;
    for (int i = 0; i < reference.length; i++) {
      max = Math.max(max, maxAbs(reference[i], engine[i]));
    }
    return max;
  }

  public static double maxAbs(double[][][] reference, float[][][] engine) {
    check(reference.length, engine.length, "heads");
    double max = 0;
    for (int i = 0; i < reference.length; i++) {
      max = Math.max(max, maxAbs(reference[i], engine[i]));
    }
    return max;
  }

  /** {@code [token][hidden]} or {@code [token][vocab]}. */
  public static double maxAbs(double[][] reference, float[][] engine) {
    check(reference.length, engine.length, "rows");
    double max = 0;
    for (int i = 0; i < reference.length; i++) {
      check(reference[i].length, engine[i].length, "columns of row " + i);
      for (int j = 0; j < reference[i].length; j++) {
        max = Math.max(max, Math.abs(reference[i][j] - engine[i][j]));
      }
    }
    return max;
  }

  private static void check(int a, int b, String what) {
    if (a != b) {
      throw new AssertionError(what + ": reference has " + a + ", engine has " + b);
    }
  }
}
