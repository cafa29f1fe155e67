package io.headscope.model;

import io.headscope.model.tokenizer.Encoding;
import java.util.List;

/**
 * Everything one forward pass shows about one input, as plain Java arrays (0-based indices).
 *
 * @param model the model's name
 * @param encoding tokens, ids and segments
 * @param mask the heads that were switched off for this pass
 * @param attention {@code [layer][head][query][key]}, captured before any head mask; rows sum to 1
 * @param valueNorms {@code [layer][head][token]}: {@code ||f^h(x_j)|| = ||(x_j W_V^h + b_V^h) W_O^h||}
 * @param hiddenStates {@code [token][d]}: the last layer's output
 * @param predictions masked-LM results at the {@code [MASK]} positions (empty when none or no MLM head)
 * @param classProbabilities softmax over the classifier's labels, or null when the model has none
 */
public record AttentionTrace(
    String model,
    Encoding encoding,
    HeadMask mask,
    float[][][][] attention,
    float[][][] valueNorms,
    float[][] hiddenStates,
    List<MaskPrediction> predictions,
    float[] classProbabilities) {

  public AttentionTrace {
    predictions = List.copyOf(predictions);
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
