package io.headscope.analysis.lens;

/** The best tokens of a distribution and a token's rank in it. */
final class TopTokens {
  private TopTokens() {}

  /** The {@code k} most probable ids, best first (ties: the smaller id first). */
  static long[] of(float[] p, int k) {
    int n = Math.min(k, p.length);
    long[] best = new long[n];
    boolean[] taken = new boolean[p.length];
    for (int i = 0; i < n; i++) {
      int arg = -1;
      for (int v = 0; v < p.length; v++) {
        if (!taken[v] && (arg < 0 || p[v] > p[arg])) {
          arg = v;
        }
      }
      taken[arg] = true;
      best[i] = arg;
    }
    return best;
  }

  /** 1 + the number of tokens strictly more probable than {@code id}. */
  static int rank(float[] p, long id) {
    float q = p[(int) id];
    int above = 0;
    for (float x : p) {
      if (x > q) {
        above++;
      }
    }
    return 1 + above;
  }
}
