package io.headscope.model.testing.families;

import io.headscope.model.testing.ReferenceSafetensors;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * A checkpoint's tensors by their own names, as double matrices. Base-model names are given without the
 * family's prefix and found with it or without it (a masked-LM checkpoint or a bare base model); every
 * read checks the shape and fails naming the tensor.
 */
final class ReferenceWeights {
  private final Map<String, ReferenceSafetensors.Tensor> tensors;
  private final String prefix;

  ReferenceWeights(Path file, String basePrefix) {
    this.tensors = ReferenceSafetensors.read(file);
    this.prefix = tensors.keySet().stream().anyMatch(n -> n.startsWith(basePrefix)) ? basePrefix : "";
  }

  /** Whether a head (top-level) tensor exists. */
  boolean hasHead(String name) {
    return tensors.containsKey(name);
  }

  boolean hasBase(String name) {
    return tensors.containsKey(prefix + name);
  }

  double[][] baseMatrix(String name, int rows, int cols) {
    return matrix(prefix + name, rows, cols);
  }

  double[] baseVector(String name, int n) {
    return vector(prefix + name, n);
  }

  double[][] matrix(String name, int rows, int cols) {
    double[] v = values(name, rows, cols);
    double[][] m = new double[rows][];
    for (int r = 0; r < rows; r++) {
      m[r] = Arrays.copyOfRange(v, r * cols, (r + 1) * cols);
    }
    return m;
  }

  double[] vector(String name, int n) {
    return values(name, n);
  }

  private double[] values(String name, long... shape) {
    ReferenceSafetensors.Tensor t = tensors.get(name);
    if (t == null) {
      throw new IllegalStateException("missing tensor " + name);
    }
    if (!Arrays.equals(t.shape(), shape)) {
      throw new IllegalStateException(name + " has shape " + Arrays.toString(t.shape()) + ", expected "
          + Arrays.toString(shape));
    }
    if (t.values() == null) {
      throw new IllegalStateException(name + " is " + t.dtype() + "; the reference reads floating-point tensors only");
    }
    return t.values();
  }
}
