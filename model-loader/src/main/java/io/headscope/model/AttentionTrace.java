package io.headscope.model;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;

/**
 * Everything one forward pass shows about one input, as plain Java arrays (0-based indices).
 *
 * @param model the model's name
 * @param encoding tokens, ids and segments
 * @param mask the heads that were switched off for this pass
 * @param maps which maps {@code attention} holds when heads were off (see {@link Maps})
 * @param attention {@code [layer][head][query][key]}; with {@link Maps#COMPUTED} each row sums to 1
 * @param valueNorms {@code [layer][head][token]}: {@code ||f^h(x_j)|| = ||(x_j W_V^h + b_V^h) W_O^h||}
 * @param hiddenStates {@code [token][d]}: the last layer's output; null for a trace of maps only ({@link BertModel#maps})
 * @param predictions masked-LM results at the {@code [MASK]} positions (empty when none or no MLM head)
 * @param classProbabilities softmax over the classifier's labels, or null when the model has none
 * @param layerNorms {@code [layer][query][key]}: Kobayashi's layer-level norm map
 *     {@code ||sum_h A^h_ij f^h(x_j)||} of each layer as it ran, or null when not asked for
 */
public record AttentionTrace(
    String model,
    Encoding encoding,
    HeadMask mask,
    Maps maps,
    float[][][][] attention,
    float[][][] valueNorms,
    float[][] hiddenStates,
    List<MaskPrediction> predictions,
    float[] classProbabilities,
    float[][][] layerNorms) {

  /** Which map of a switched-off head a trace holds; the layers above it feel the switch either way. */
  public enum Maps {
    /** What each head computed, before its own switch: a switched-off head shows what it would have done. */
    COMPUTED("computed"),
    /** What flowed on, after the switches: a head off in zero mode shows zeros, in uniform mode even rows. */
    AS_RUN("as-run");

    private final String label;

    Maps(String label) {
      this.label = label;
    }

    /** As written in exports ({@code "maps": "as-run"}). */
    public String label() {
      return label;
    }
  }

  public AttentionTrace {
    predictions = List.copyOf(predictions);
  }

  /** What an export says the maps are: {@code intact} with every head on, else {@link Maps#label()}. */
  public String mapsLabel() {
    return mask.isEmpty() ? "intact" : maps.label();
  }

  public int layers() {
    return attention.length;
  }

  public int heads() {
    return attention.length == 0 ? 0 : attention[0].length;
  }

  public List<String> tokens() {
    return encoding.tokens();
  }

  /** The map of one head, [query][key]. */
  public float[][] map(Head h) {
    return attention[h.layer()][h.head()];
  }
}
