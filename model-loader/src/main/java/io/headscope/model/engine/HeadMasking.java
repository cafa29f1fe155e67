package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.headscope.model.core.HeadMask;
import java.util.function.UnaryOperator;

/**
 * {@link Intervention.HeadMasks} in tensors: one intervention per layer that has a head changed, on
 * {@code blocks.l.attn.hook_pattern}, never by editing the output after the projection.
 */
final class HeadMasking {
  private HeadMasking() {}

  static void attach(Hooks hooks, Intervention.HeadMasks masks, Batch batch) {
    float[][][] multipliers = masks.multipliers();
    int layers = multipliers[0].length;
    int heads = multipliers[0][0].length;
    int rows = multipliers.length;
    if (rows != 1 && rows != batch.size()) {
      throw new IllegalArgumentException(rows + " mask rows for a batch of " + batch.size());
    }
    NDArray uniform = null;
    if (masks.mode() == HeadMask.Mode.UNIFORM) {
      NDArray real = batch.real().toType(DataType.FLOAT32, false); // (B, T)
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
      if (any) {
        NDArray m = batch.real().getManager().create(flat, new Shape(rows, heads, 1, 1)); // (B|1, H, 1, 1)
        hooks.intervene(HookPoint.pattern(l), pattern(m, uniform));
      }
    }
  }

  /** The intervention itself, for one layer's multipliers {@code m} (B|1, H, 1, 1). */
  static UnaryOperator<NDArray> pattern(NDArray m, NDArray uniform) {
    if (uniform == null) {
      return a -> a.mul(m);
    }
    NDArray replace = m.neg().add(Scalars.of(m, 1f)).mul(uniform); // (B, H, 1, T)
    return a -> a.mul(m).add(replace);
  }
}
