package io.headscope.analysis.lens;

/**
 * One component's direct contribution to the logits at a read position.
 *
 * @param component {@code embed}, {@code head}, {@code attn_bias} (the attention block's output bias) or
 *     {@code mlp}
 * @param layer 1-based layer (0 for the embeddings)
 * @param head 1-based head, or 0 for a component that is not a head
 * @param position the 0-based read position
 * @param target the component's direct logit for the target
 * @param contrast for the contrast (NaN without one)
 */
public record DlaRow(String component, int layer, int head, int position, double target, double contrast) {
  /** Its share of the logit difference (target minus contrast). */
  public double difference() {
    return target - contrast;
  }
}
