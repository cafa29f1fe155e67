package io.headscope.model.engine;

import io.headscope.model.tokenizer.Encoding;
import java.util.List;

/**
 * A backward pass: the gradient of the masked-LM loss {@code -mean_i log p(target_i | position_i)} of
 * one input (or, with {@code classLabel >= 0}, the sequence classifier's cross-entropy
 * {@code -log p(classLabel | input)}), with respect to per-head mask variables or to a hook point.
 *
 * @param input the input
 * @param interventions as for a run (the loss is of the model as it runs with them)
 * @param positions where the loss is read
 * @param targets the target token per position; null: this pass's own most probable token at each
 *     position (at mask 1 that is the intact model's prediction)
 * @param withRespectTo the point to differentiate at; null: the head-mask variables {@code m} (L, H),
 *     all ones, multiplying each head's pattern (zero-mode semantics, Michel et al.'s {@code head_mask})
 * @param classLabel the gold class whose cross-entropy is the loss instead of the masked-LM loss (the
 *     positions and targets are then unused); -1: the masked-LM loss
 */
public record GradientRequest(Encoding input, List<Intervention> interventions, int[] positions, long[] targets,
    HookPoint withRespectTo, int classLabel) {

  public GradientRequest {
    interventions = List.copyOf(interventions);
    if (classLabel < 0 && targets != null && targets.length != positions.length) {
      throw new IllegalArgumentException("one target per position");
    }
  }

  /** The masked-LM loss. */
  public GradientRequest(Encoding input, List<Intervention> interventions, int[] positions, long[] targets,
      HookPoint withRespectTo) {
    this(input, interventions, positions, targets, withRespectTo, -1);
  }

  /**
   * The classifier's cross-entropy of {@code label} with respect to the head-mask variables, the model
   * running with {@code interventions} (e.g. heads already pruned).
   */
  public static GradientRequest classifierHeadMask(Encoding input, int label, List<Intervention> interventions) {
    if (label < 0) {
      throw new IllegalArgumentException("negative class label " + label);
    }
    return new GradientRequest(input, interventions, new int[0], null, null, label);
  }

  public boolean classifierLoss() {
    return classLabel >= 0;
  }

  public static GradientRequest headMask(Encoding input, int[] positions, long[] targets) {
    return new GradientRequest(input, List.of(), positions, targets, null);
  }
}
