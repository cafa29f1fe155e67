package io.headscope.model.checkpoint;

import java.util.Arrays;

/**
 * A named float32 tensor held in plain Java memory, row-major.
 *
 * <p>This is the currency of checkpoint conversion: readers produce it, writers consume it. The engine
 * never sees it; it loads safetensors straight into native memory.
 */
public record FloatTensor(String name, long[] shape, float[] data) {

  public FloatTensor {
    long n = 1;
    for (long s : shape) {
      n *= s;
    }
    if (n != data.length) {
      throw new IllegalArgumentException(
          name + ": shape " + Arrays.toString(shape) + " needs " + n + " floats, got " + data.length);
    }
    shape = shape.clone();
  }

  /** The transpose of a 2-D tensor, under a new name (TensorFlow kernels are stored x·W). */
  public FloatTensor transposed(String newName) {
    if (shape.length != 2) {
      throw new IllegalStateException(name + " is not 2-D: " + Arrays.toString(shape));
    }
    int rows = (int) shape[0];
    int cols = (int) shape[1];
    float[] t = new float[data.length];
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < cols; c++) {
        t[c * rows + r] = data[r * cols + c];
      }
    }
    return new FloatTensor(newName, new long[] {cols, rows}, t);
  }

  public FloatTensor renamed(String newName) {
    return new FloatTensor(newName, shape, data);
  }
}
