package io.headscope.analysis.circuits;

import io.headscope.model.core.Parts;

/**
 * The transpose of a layer's rotary turn, for carrying a gradient at {@code attn.hook_q|k} (after the turn) back
 * to the projection's output (before it). The engine turns {@code y = x cos + rotate_half(x) sin} over the first
 * {@code r} dimensions of a head ({@code rotate_half([x1, x2]) = [-x2, x1]}, the angle of dimensions i and i + r/2
 * at position p equal to {@code p invFreq[i]}; the rest pass unchanged: GPT-NeoX's partial rotary): per pair
 * {@code (y_i, y_{i+r/2}) = (x_i c - x_{i+r/2} s, x_{i+r/2} c + x_i s)}, a rotation, whose transpose is {@code
 * (g_i c + g_{i+r/2} s, g_{i+r/2} c - g_i s)}. Angles in double, as the engine's tables before their rounding to
 * float (the difference is a float32 rounding of each cosine).
 */
final class Unrotation {
  private final double[] cos;
  private final double[] sin;
  private final int half;
  private final int dh;

  private Unrotation(Parts.Rotary r, int dh, int tokens) {
    double[] inv = r.inverseFrequencies(dh);
    this.half = r.dims(dh) / 2;
    this.dh = dh;
    cos = new double[tokens * half];
    sin = new double[tokens * half];
    for (int p = 0; p < tokens; p++) {
      for (int i = 0; i < half; i++) {
        cos[p * half + i] = Math.cos(p * inv[i]);
        sin[p * half + i] = Math.sin(p * inv[i]);
      }
    }
  }

  /** Each layer's, null for a layer without rotary positions (every layer of BERT's kin and GPT-2). */
  static Unrotation[] of(Parts parts, int layers, int dh, int tokens) {
    Unrotation[] out = new Unrotation[layers];
    if (parts.position() != Parts.Position.ROTARY) {
      return out;
    }
    java.util.Map<Parts.Rotary, Unrotation> made = new java.util.HashMap<>();
    for (int l = 0; l < layers; l++) {
      out[l] = made.computeIfAbsent(parts.rotary(l), r -> new Unrotation(r, dh, tokens));
    }
    return out;
  }

  /** A (T, dh) gradient block turned back, in place. */
  void apply(float[] g) {
    int tokens = g.length / dh;
    for (int p = 0; p < tokens; p++) {
      int o = p * dh;
      for (int i = 0; i < half; i++) {
        double c = cos[p * half + i];
        double s = sin[p * half + i];
        double a = g[o + i];
        double b = g[o + i + half];
        g[o + i] = (float) (a * c + b * s);
        g[o + i + half] = (float) (b * c - a * s);
      }
    }
  }
}
