package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.headscope.model.tokenizer.Encoding;
import java.util.Arrays;
import java.util.List;

/** A padded batch of inputs in native memory: ids, segments and the real-token mask, all (B, T). */
record Batch(NDArray ids, NDArray segments, NDArray real, int[] lengths, int width) {

  static Batch of(NDManager scope, List<Encoding> inputs) {
    int b = inputs.size();
    int t = inputs.stream().mapToInt(Encoding::length).max().orElse(0);
    long[] ids = new long[b * t];
    long[] seg = new long[b * t];
    long[] real = new long[b * t];
    int[] lengths = new int[b];
    for (int i = 0; i < b; i++) {
      Encoding e = inputs.get(i);
      lengths[i] = e.length();
      System.arraycopy(e.ids(), 0, ids, i * t, e.length());
      System.arraycopy(e.segments(), 0, seg, i * t, e.length());
      Arrays.fill(real, i * t, i * t + e.length(), 1L);
    }
    Shape shape = new Shape(b, t);
    return new Batch(scope.create(ids, shape), scope.create(seg, shape),
        scope.create(real, shape).toType(DataType.INT64, false), lengths, t);
  }

  int size() {
    return lengths.length;
  }
}
