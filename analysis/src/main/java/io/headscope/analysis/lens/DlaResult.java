package io.headscope.analysis.lens;

import java.util.List;

/**
 * Direct logit attribution of one input: every component's direct logit at every read position.
 *
 * @param tokens the input's tokens
 * @param target the target token id
 * @param contrast the contrast token id, or -1
 * @param method how the model was made linear (what the numbers are, and are not)
 * @param rows per read position: {@code embed}, then per layer every {@code head}, {@code attn_bias},
 *     {@code mlp}; a post-LayerNorm model's last row per position is {@code bias}, the remainder
 * @param positions the read positions, in order
 * @param modelDifference the model's own logit difference {@code log p(t) - log p(c)} at each read
 *     position from the same forward pass (NaN without a contrast): what the components are checked against
 */
public record DlaResult(List<String> tokens, long target, long contrast, Method method, List<DlaRow> rows,
    int[] positions, double[] modelDifference) {

  /** The linearisations, named as the CLI, CSV and app say them. */
  public enum Method {
    /**
     * Pre-LayerNorm (GPT-2): the components sum in the stream; only {@code ln_f}'s scale is frozen and its
     * shift is left out, so they sum to the logit less {@code W_U . beta}.
     */
    FINAL_SCALE_FROZEN("frozen ln_f scale (pre-LayerNorm): direct path through ln_f; components sum to the "
        + "logit less W_U.beta"),
    /**
     * Pre-RMSNorm (Llama, Qwen2, Mistral, Gemma): only the final RMSNorm's scale is frozen; nothing is centred and
     * there is no shift, so the components sum to the logit itself.
     */
    FINAL_RMS_SCALE_FROZEN("frozen final RMSNorm scale (pre-RMSNorm): direct path through the final norm; "
        + "components sum to the logit"),
    /**
     * Post-LayerNorm (BERT family): every LayerNorm's 1/sigma and the head's GELU ratio frozen at the run's
     * values; the components, with the {@code bias} remainder, sum to the logit exactly.
     */
    ALL_SCALES_FROZEN("frozen-scale linearisation (post-LayerNorm): every LayerNorm's 1/sigma and the head's "
        + "gelu(z)/z frozen at this run; components plus the bias row sum to the logit. An attribution, not "
        + "the effect of removing a component");

    private final String description;

    Method(String description) {
      this.description = description;
    }

    /** One line saying what the numbers are. */
    public String description() {
      return description;
    }
  }

  public DlaResult {
    tokens = List.copyOf(tokens);
    rows = List.copyOf(rows);
    positions = positions.clone();
    modelDifference = modelDifference.clone();
  }

  /**
   * The heads' components at a read position as a (layer, head) grid, 0-based indices: the target's direct
   * logit, or with {@code difference} its share of target minus contrast.
   */
  public double[][] heads(int position, int layers, int heads, boolean difference) {
    double[][] grid = new double[layers][heads];
    for (DlaRow r : rows) {
      if (r.position() == position && r.component().equals("head")) {
        grid[r.layer() - 1][r.head() - 1] = difference ? r.difference() : r.target();
      }
    }
    return grid;
  }

  /** The sum of every component at a read position: the target's logit, or with {@code difference} the difference. */
  public double sum(int position, boolean difference) {
    double s = 0;
    for (DlaRow r : rows) {
      if (r.position() == position) {
        s += difference ? r.difference() : r.target();
      }
    }
    return s;
  }
}
