package io.headscope.model.engine;

import io.headscope.model.tokenizer.Encoding;
import java.util.List;

/**
 * A backward pass: the gradient of the masked-LM loss {@code -mean_i log p(target_i | position_i)} of
 * one input, with respect to per-head mask variables or to a hook point.
 *
 * @param input the input
 * @param interventions as for a run (the loss is of the model as it runs with them)
 * @param positions where the loss is read
 * @param targets the target token per position; null: this pass's own most probable token at each
 *     position (at mask 1 that is the intact model's prediction)
 * @param withRespectTo the point to differentiate at; null: the head-mask variables {@code m} (L, H),
 *     all ones, multiplying each head's pattern (zero-mode semantics, Michel et al.'s {@code head_mask})
 */
public record GradientRequest(Encoding input, List<Intervention> interventions, int[] positions, long[] targets,
    HookPoint withRespectTo) {

  public GradientRequest {
    interventions = List.copyOf(interventions);
    if (targets != null && targets.length != positions.length) {
      throw new IllegalArgumentException("one target per position");
    }
  }

  public static GradientRequest headMask(Encoding input, int[] positions, long[] targets) {
    return new GradientRequest(input, List.of(), positions, targets, null);
  }
}
