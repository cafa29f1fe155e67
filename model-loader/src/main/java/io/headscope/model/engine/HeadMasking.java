package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.headscope.model.HeadMask;

/**
 * Switches heads off inside the attention, as interventions on {@code blocks.l.attn.hook_pattern}
 * (after the pattern has been captured), never by editing the output after the projection.
 *
 * <p>With multipliers {@code m} (1 keeps a head, 0 switches it off):
 * zero mode gives {@code A' = m A}; uniform mode gives {@code A' = m A + (1 - m) U} where
 * {@code U} spreads each row evenly over the real tokens.
 */
public final class HeadMasking {
  private HeadMasking() {}

  /**
   * Attaches one intervention per layer that has a head switched off.
   *
   * @param multipliers {@code [batch or 1][layer][head]}: one mask for the whole batch, or one per input
   * @param realTokens (B, T) 1 for real tokens, 0 for padding (used by uniform mode)
   */
  public static void attach(Hooks hooks, float[][][] multipliers, HeadMask.Mode mode,
      NDArray realTokens, NDManager scope) {
    int layers = multipliers[0].length;
    int heads = multipliers[0][0].length;
    int rows = multipliers.length;
    NDArray uniform = null;
    if (mode == HeadMask.Mode.UNIFORM) {
      NDArray real = realTokens.toType(ai.djl.ndarray.types.DataType.FLOAT32, false); // (B, T)
      uniform = real.div(real.sum(new int[] {1}, true)).expandDims(1).expandDims(1); // (B, 1, 1, T)
    }
    for (int l = 0; l < layers; l++) {
      float[] flat = new float[rows * heads];
      boolean any = false;
      for (int b = 0; b < rows; b++) {
        for (int h = 0; h < heads; h++) {
          flat[b * heads + h] = multipliers[b][l][h];
          any |= multipliers[b][l][h] != 1f;
        }
      }
      if (!any) {
        continue;
      }
      NDArray m = scope.create(flat, new ai.djl.ndarray.types.Shape(rows, heads, 1, 1)); // (B|1, H, 1, 1)
      hooks.intervene(Hooks.pattern(l), pattern(m, uniform));
    }
  }

  /** The intervention itself, for one layer's multipliers {@code m} (B|1, H, 1, 1). */
  public static java.util.function.UnaryOperator<NDArray> pattern(NDArray m, NDArray uniform) {
    if (uniform == null) {
      return a -> a.mul(m);
    }
    NDArray keep = m;
    NDArray replace = m.neg().add(1f).mul(uniform); // (B, H, 1, T)
    return a -> a.mul(keep).add(replace);
  }
}
