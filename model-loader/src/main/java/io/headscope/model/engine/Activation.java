package io.headscope.model.engine;

import java.util.Arrays;

/**
 * An intermediate of the forward pass as plain Java: row-major floats and their shape. What leaves
 * the engine; the engine's tensors never do.
 *
 * @param data the values, row-major (the last index varies fastest)
 * @param shape the dimensions, e.g. {@code {B, H, T, T}} for a pattern
 */
public record Activation(float[] data, int[] shape) {

  public Activation {
    long size = 1;
    for (int s : shape) {
      if (s < 0) {
        throw new IllegalArgumentException("negative dimension in " + Arrays.toString(shape));
      }
      size *= s;
    }
    if (size != data.length) {
      throw new IllegalArgumentException(data.length + " values do not fill shape " + Arrays.toString(shape));
    }
    shape = shape.clone();
  }

  @Override
  public int[] shape() {
    return shape.clone();
  }

  public int rank() {
    return shape.length;
  }

  public int dim(int i) {
    return shape[i];
  }

  /** The flat index of a full set of indices. */
  public int index(int... idx) {
    if (idx.length != shape.length) {
      throw new IllegalArgumentException(idx.length + " indices for shape " + Arrays.toString(shape));
    }
    int flat = 0;
    for (int i = 0; i < idx.length; i++) {
      if (idx[i] < 0 || idx[i] >= shape[i]) {
        throw new IndexOutOfBoundsException("index " + Arrays.toString(idx) + " outside " + Arrays.toString(shape));
      }
      flat = flat * shape[i] + idx[i];
    }
    return flat;
  }

  public float get(int... idx) {
    return data[index(idx)];
  }

  /**
   * The top-left {@code rows x cols} of the matrix at the leading indices {@code lead} of a tensor
   * whose last two dimensions are a matrix: how padded batch tensors are trimmed to one input.
   */
  public float[][] matrix(int rows, int cols, int... lead) {
    if (lead.length != shape.length - 2) {
      throw new IllegalArgumentException(lead.length + " leading indices for shape " + Arrays.toString(shape));
    }
    int r = shape[shape.length - 2];
    int c = shape[shape.length - 1];
    int base = 0;
    for (int i = 0; i < lead.length; i++) {
      base = base * shape[i] + lead[i];
    }
    base *= r * c;
    float[][] out = new float[rows][cols];
    for (int q = 0; q < rows; q++) {
      System.arraycopy(data, base + q * c, out[q], 0, cols);
    }
    return out;
  }

  /** The first {@code n} values of the vector at the leading indices of a tensor whose last dimension is a vector. */
  public float[] vector(int n, int... lead) {
    if (lead.length != shape.length - 1) {
      throw new IllegalArgumentException(lead.length + " leading indices for shape " + Arrays.toString(shape));
    }
    int base = 0;
    for (int i = 0; i < lead.length; i++) {
      base = base * shape[i] + lead[i];
    }
    return Arrays.copyOfRange(data, base * shape[shape.length - 1], base * shape[shape.length - 1] + n);
  }

  /** {@code copies} copies of this tensor stacked along its first dimension: (N, ...) to (copies * N, ...). */
  public Activation repeatRows(int copies) {
    float[] out = new float[data.length * copies];
    for (int i = 0; i < copies; i++) {
      System.arraycopy(data, 0, out, i * data.length, data.length);
    }
    int[] s = shape.clone();
    s[0] *= copies;
    return new Activation(out, s);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Activation a && Arrays.equals(shape, a.shape) && Arrays.equals(data, a.data);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(shape) + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "Activation" + Arrays.toString(shape);
  }
}
