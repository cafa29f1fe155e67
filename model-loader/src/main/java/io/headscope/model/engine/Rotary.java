package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import io.headscope.model.core.Parts;

/**
 * Rotary position embeddings (Su et al.), as transformers' Llama applies them: {@code q' = q cos + rotate_half(q)
 * sin} with {@code rotate_half([x1, x2]) = [-x2, x1]} over the two halves of a head's dimensions, and the
 * angle of dimension i (and i + dh/2) at position p equal to {@code p * invFreq[i]}.
 *
 * <p>The angles and their cosines and sines are computed in double in Java and rounded once to float:
 * transformers computes {@code p * invFreq} in float32, whose rounding grows with p (about 1e-4 radians at
 * p = 2048); ours is the exact angle rounded once, so the float32 engine and a float64 reference differ only
 * by the last bit of each cosine. Positions are 0..T-1 in every batch row (HeadScope pads at the end).
 *
 * <p>Partial rotary (GPT-NeoX's {@code rotary_pct}): only the first {@code r = int(dh * rotary_pct)} dimensions of
 * a head turn, {@code rotate_half} over those r, and the other {@code dh - r} pass unchanged ({@code query_rot},
 * {@code query_pass} in {@code modeling_gpt_neox.py}).
 */
final class Rotary {
  private final double[] invFreq;
  /** The dimensions that turn: the head size, or fewer (partial rotary). */
  private final int dh;
  private final int headSize;
  /** The last length's {@code cos} and {@code sin}, (T, dh) row-major: a run asks once per layer. */
  private int cachedLength = -1;
  private float[] cos;
  private float[] sin;

  Rotary(Parts.Rotary r, int headSize) {
    this.invFreq = r.inverseFrequencies(headSize);
    this.dh = r.dims(headSize);
    this.headSize = headSize;
  }

  /** {@code x} (B, H, T, dh) turned by its positions' angles. */
  NDArray apply(NDArray x) {
    if (dh < headSize) {
      NDArray turned = turn(x.get(new NDIndex("..., 0:" + dh)));
      return NDArrays.concat(new NDList(turned, x.get(new NDIndex("..., " + dh + ":"))), -1);
    }
    return turn(x);
  }

  /** {@code x} (B, H, T, dh) whose every dimension turns. */
  private NDArray turn(NDArray x) {
    int t = (int) x.getShape().get(2);
    tables(t);
    NDManager m = x.getManager();
    NDArray c = m.create(cos, new Shape(1, 1, t, dh));
    NDArray s = m.create(sin, new Shape(1, 1, t, dh));
    int half = dh / 2;
    NDArray x1 = x.get(new NDIndex("..., 0:" + half));
    NDArray x2 = x.get(new NDIndex("..., " + half + ":"));
    NDArray rotated = NDArrays.concat(new NDList(x2.neg(), x1), -1); // rotate_half
    return x.mul(c).add(rotated.mul(s)); // (B, H, T, dh)
  }

  private synchronized void tables(int t) {
    if (t == cachedLength) {
      return;
    }
    float[] c = new float[t * dh];
    float[] s = new float[t * dh];
    int half = dh / 2;
    for (int p = 0; p < t; p++) {
      for (int i = 0; i < half; i++) {
        double angle = p * invFreq[i];
        float ci = (float) Math.cos(angle);
        float si = (float) Math.sin(angle);
        c[p * dh + i] = ci;
        c[p * dh + i + half] = ci; // emb = cat(freqs, freqs)
        s[p * dh + i] = si;
        s[p * dh + i + half] = si;
      }
    }
    cos = c;
    sin = s;
    cachedLength = t;
  }
}
