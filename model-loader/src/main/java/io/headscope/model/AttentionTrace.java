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
 * @param attention {@code [layer][head][query][key]}; with {@link Maps#COMPUTED} each row sums to 1; null in a
 *     trace of summaries ({@link TraceRequest.Keep#SUMMARIES}), whose {@link #map} recomputes a head's map
 * @param valueNorms {@code [layer][head][token]}: {@code ||f^h(x_j)|| = ||(x_j W_V^h + b_V^h) W_O^h||}
 * @param hiddenStates {@code [token][d]}: the last layer's output; null for a trace of maps only ({@link BertModel#maps})
 * @param predictions masked-LM results at the {@code [MASK]} positions (empty when none or no MLM head)
 * @param classProbabilities softmax over the classifier's labels, or null when the model has none
 * @param layerNorms {@code [layer][query][key]}: Kobayashi's layer-level norm map
 *     {@code ||sum_h A^h_ij f^h(x_j)||} of each layer as it ran, or null when not asked for
 * @param summaries every head's summary and thumbnail in a trace of summaries; null in a full trace (whose
 *     {@link #summaries(int)} computes them from the maps)
 * @param onDemand how a trace of summaries recomputes a head's map; null in a full trace
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
    float[][][] layerNorms,
    HeadSummaries summaries,
    MapSource onDemand) {

  /** Recomputes one head's full map, {@code [query][key]}, from what a trace of summaries kept. */
  @FunctionalInterface
  public interface MapSource {
    float[][] map(Head h);
  }

  /** A full trace: every map in {@code attention}. */
  public AttentionTrace(String model, Encoding encoding, HeadMask mask, Maps maps, float[][][][] attention,
      float[][][] valueNorms, float[][] hiddenStates, List<MaskPrediction> predictions, float[] classProbabilities,
      float[][][] layerNorms) {
    this(model, encoding, mask, maps, attention, valueNorms, hiddenStates, predictions, classProbabilities,
        layerNorms, null, null);
  }

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
    if ((attention == null) == (onDemand == null)) {
      throw new IllegalArgumentException("a trace holds either every map or a way to recompute them");
    }
  }

  /** Whether the trace holds every map ({@link TraceRequest.Keep#FULL_MAPS}) rather than summaries. */
  public boolean hasFullMaps() {
    return attention != null;
  }

  /**
   * Every head's summary and thumbnail: those a trace of summaries kept, or for a full trace computed from
   * its maps with thumbnails of {@code side}.
   */
  public HeadSummaries summaries(int side) {
    return summaries != null ? summaries : HeadSummaries.of(attention, side);
  }

  /** What an export says the maps are: {@code intact} with every head on, else {@link Maps#label()}. */
  public String mapsLabel() {
    return mask.isEmpty() ? "intact" : maps.label();
  }

  public int layers() {
    return attention != null ? attention.length : summaries.layers();
  }

  public int heads() {
    return attention != null ? (attention.length == 0 ? 0 : attention[0].length) : summaries.heads();
  }

  public List<String> tokens() {
    return encoding.tokens();
  }

  /**
   * The map of one head, [query][key]: the one kept, or in a trace of summaries recomputed now from the kept
   * queries and keys (tens of milliseconds at 2,048 tokens), the same numbers a full trace holds.
   */
  public float[][] map(Head h) {
    return attention != null ? attention[h.layer()][h.head()] : onDemand.map(h);
  }
}
