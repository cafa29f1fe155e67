package io.headscope.model.engine;

import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadMask;
import java.util.function.UnaryOperator;

/**
 * A change to the forward pass at a hook point, for one run only (TransformerLens's
 * {@code run_with_hooks(fwd_hooks=...)}): the model code never branches on "is this head ablated".
 * Interventions apply in the order given; captures of stage {@code BEFORE_INTERVENTIONS} see the
 * value before all of them.
 *
 * <p>The plain-Java kinds are here; kinds whose arithmetic must stay in native tensors (linear
 * attention, for instance) are written inside the engine package.
 */
public sealed interface Intervention permits Intervention.HeadMasks, Intervention.Patch, Intervention.Edit,
    TensorIntervention {

  /**
   * Switches heads off inside the attention, at {@code attn.hook_pattern} (METHODS.md, "Switching heads
   * off"). With multipliers {@code m} (1 keeps a head, 0 switches it off, values between scale it):
   * zero mode gives {@code A' = m A}; uniform mode {@code A' = m A + (1 - m) U}, U spreading each row
   * evenly over the real tokens.
   *
   * @param multipliers {@code [row][layer][head]}: one row for the whole batch, or one per input
   */
  record HeadMasks(float[][][] multipliers, HeadMask.Mode mode) implements Intervention {
    public HeadMasks {
      if (multipliers.length == 0) {
        throw new IllegalArgumentException("no multipliers");
      }
    }
  }

  /**
   * Replaces the value at a point with a given one of the same shape: activation patching, or feeding
   * the residual stream of another run.
   */
  record Patch(HookPoint point, Activation value) implements Intervention {}

  /**
   * Replaces the value at a point with {@code fn(value)} computed in Java. General but slow (the value
   * is copied out and back): for experiments, not for sweeps.
   */
  record Edit(HookPoint point, UnaryOperator<Activation> fn) implements Intervention {}

  /** The heads of a {@link HeadMask} off, for every input of the batch; null when it switches none off. */
  static HeadMasks heads(HeadMask mask, BertConfig config) {
    if (mask.isEmpty()) {
      return null;
    }
    return new HeadMasks(new float[][][] {mask.multipliers(config.numHiddenLayers(), config.numAttentionHeads())},
        mask.mode());
  }
}
