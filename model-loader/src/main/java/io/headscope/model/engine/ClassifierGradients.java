package io.headscope.model.engine;

import io.headscope.model.tokenizer.Encoding;
import java.util.List;

/**
 * A batch of backward passes of a sequence classifier's cross-entropy, one per input, with respect to
 * per-input head-mask variables (Michel et al.'s importance with the task loss). Each input has its own
 * mask variables {@code m_b} (L, H), all ones, so one backward pass of {@code sum_b -log p(label_b | x_b)}
 * gives every input's own {@code d(-log p(label_b | x_b)) / d m_b}: the inputs do not interact.
 *
 * @param inputs the batch (padded and masked as in a run)
 * @param labels the gold class of each input
 * @param interventions as for a run (e.g. heads already pruned), for the whole batch
 */
public record ClassifierGradients(List<Encoding> inputs, int[] labels, List<Intervention> interventions) {

  public ClassifierGradients {
    inputs = List.copyOf(inputs);
    interventions = List.copyOf(interventions);
    if (inputs.isEmpty() || labels.length != inputs.size()) {
      throw new IllegalArgumentException(labels.length + " labels for " + inputs.size() + " inputs");
    }
  }

  /**
   * @param losses each input's cross-entropy (nats)
   * @param headMask each input's {@code dLoss/dm}, {@code [input][layer][head]}
   */
  public record Result(double[] losses, double[][][] headMask) {}
}
