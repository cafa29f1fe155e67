package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;

/**
 * Java numbers as 0-d arrays that live as long as the arrays they are combined with.
 *
 * <p>Why not DJL's {@code NDArray.mul(Number)} and its kin: they wrap the number in a 0-d array over a
 * direct {@code ByteBuffer}, run the operation and close that array at once. Under a gradient collector
 * torch keeps the 0-d tensor for the backward pass ({@code mul}, {@code div} and {@code pow} save their
 * operands), but nothing keeps its memory: once the Java collector frees the buffer, the backward pass
 * reads whatever lies there by then. Fine-tuning diverged to NaN in about one JVM in ten that way
 * (always with a collection forced between the passes), and any gradient could have been bent. A 0-d
 * array made here belongs to the operand's manager, the scope of the call, and is freed with it, after
 * the backward pass. The values are the same bits: DJL's overloads divide by the same 0-d array.
 * {@code LayerBoundariesTest} keeps the number overloads out of the engine.
 */
final class Scalars {
  private Scalars() {}

  /** {@code v} as a 0-d float32 array in {@code like}'s manager. */
  static NDArray of(NDArray like, float v) {
    return like.getManager().create(v);
  }
}
