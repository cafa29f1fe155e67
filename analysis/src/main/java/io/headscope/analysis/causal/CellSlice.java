package io.headscope.analysis.causal;

/**
 * Where one cell (a head, or a token position) lies inside one batch row of a point's value: {@code runs}
 * stretches of {@code length} floats, the first at {@code offset}, each {@code stride} after the last.
 * A head of {@code attn.hook_result} (T, H, d) is T stretches of d; a head of q (H, T, dh) one stretch
 * of T dh; a position of the stream (T, d) one stretch of d.
 */
record CellSlice(int offset, int runs, int length, int stride) {

  /** Cell {@code cell} of a site whose value has {@code shape} (B first). */
  static CellSlice of(PatchSite site, int[] shape, int cell) {
    if (site == PatchSite.HEAD) {
      int t = shape[1];
      int h = shape[2];
      int d = shape[3];
      return new CellSlice(cell * d, t, d, h * d); // (T, H, d): head h at every token
    }
    if (site.perHead()) {
      int t = shape[2];
      int dh = shape[3];
      return new CellSlice(cell * t * dh, 1, t * dh, 0); // (H, T, dh): head h's block
    }
    int d = shape[2];
    return new CellSlice(cell * d, 1, d, 0); // (T, d): token p's row
  }

  /** The number of cells of a site: heads, or tokens. */
  static int count(PatchSite site, int[] shape) {
    return site == PatchSite.HEAD ? shape[2] : shape[1]; // (B, T, H, d); (B, H, T, dh) or (B, T, d)
  }

  /** Copies this cell of {@code from}'s row 0 into row {@code row} of {@code to} (rows of {@code rowSize}). */
  void copy(float[] from, float[] to, int row, int rowSize) {
    for (int r = 0; r < runs; r++) {
      System.arraycopy(from, offset + r * stride, to, row * rowSize + offset + r * stride, length);
    }
  }

  /** Whether this cell of {@code a}'s row 0 equals {@code b}'s bit for bit. */
  boolean same(float[] a, float[] b) {
    for (int r = 0; r < runs; r++) {
      int base = offset + r * stride;
      if (!java.util.Arrays.equals(a, base, base + length, b, base, base + length)) {
        return false;
      }
    }
    return true;
  }

  /** {@code sum over the cell of g (a - b)}: a gradient times a difference, summed over this cell of row 0. */
  double dot(float[] g, float[] a, float[] b) {
    double s = 0;
    for (int r = 0; r < runs; r++) {
      int base = offset + r * stride;
      for (int i = base; i < base + length; i++) {
        s += (double) g[i] * ((double) a[i] - (double) b[i]);
      }
    }
    return s;
  }
}
