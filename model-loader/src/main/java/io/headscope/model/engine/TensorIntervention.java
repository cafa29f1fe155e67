package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;

/**
 * An intervention whose arithmetic stays in native tensors, written inside the engine package (where
 * the tensors are): it attaches its functions to the run's hooks.
 */
non-sealed interface TensorIntervention extends Intervention {
  void attach(Hooks hooks, Batch batch);

  /** For interventions that need the layer's tensors of the same call. */
  static NDArray sameScope(NDArray like, float[] data, long... shape) {
    return like.getManager().create(data, new ai.djl.ndarray.types.Shape(shape));
  }
}
