package io.headscope.model;

import io.headscope.model.core.HeadMask;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What {@link BertModel#trace(TraceRequest)} computes, with named options instead of positional
 * arguments:
 *
 * <pre>{@code
 * model.trace(TraceRequest.of(inputs).mask(off).top(5).maps(Maps.AS_RUN).layerNorms())
 * }</pre>
 *
 * <p>Immutable: each option returns a changed copy, so a request can be kept and varied.
 *
 * @param inputs the batch; inputs of different lengths are padded and masked, so each trace equals what
 *     the input gives alone
 * @param mask heads switched off for the pass (default none)
 * @param top how many tokens each {@code [MASK]}'s prediction lists (default 5)
 * @param maps which map a switched-off head shows (default {@link AttentionTrace.Maps#COMPUTED})
 * @param layerNormMaps whether Kobayashi's layer-level norm maps are computed in the same pass (default no;
 *     {@link #layerNorms()} asks for them)
 * @param adjust further changes to the run after the head mask (e.g. heads whose patterns are replaced);
 *     with {@link AttentionTrace.Maps#AS_RUN} the maps show what they made of the heads
 */
public record TraceRequest(List<Encoding> inputs, HeadMask mask, int top, AttentionTrace.Maps maps,
    boolean layerNormMaps, UnaryOperator<RunRequest> adjust) {

  /** How many tokens a prediction lists unless {@link #top(int)} says otherwise. */
  public static final int DEFAULT_TOP = 5;

  public TraceRequest {
    inputs = List.copyOf(inputs);
    if (top < 0) {
      throw new IllegalArgumentException("top " + top + " < 0");
    }
  }

  /** Every head on, the maps as computed, the five most probable tokens at each {@code [MASK]}. */
  public static TraceRequest of(List<Encoding> inputs) {
    return new TraceRequest(inputs, HeadMask.NONE, DEFAULT_TOP, AttentionTrace.Maps.COMPUTED, false,
        UnaryOperator.identity());
  }

  public static TraceRequest of(Encoding input) {
    return of(List.of(input));
  }

  public TraceRequest mask(HeadMask m) {
    return new TraceRequest(inputs, m, top, maps, layerNormMaps, adjust);
  }

  public TraceRequest top(int k) {
    return new TraceRequest(inputs, mask, k, maps, layerNormMaps, adjust);
  }

  public TraceRequest maps(AttentionTrace.Maps m) {
    return new TraceRequest(inputs, mask, top, m, layerNormMaps, adjust);
  }

  /** Also Kobayashi's layer-level norm maps ({@link AttentionTrace#layerNorms()}). */
  public TraceRequest layerNorms() {
    return layerNorms(true);
  }

  public TraceRequest layerNorms(boolean on) {
    return new TraceRequest(inputs, mask, top, maps, on, adjust);
  }

  /** Adds changes to the run, applied after the head mask and after any added before. */
  public TraceRequest adjust(UnaryOperator<RunRequest> more) {
    UnaryOperator<RunRequest> before = adjust;
    return new TraceRequest(inputs, mask, top, maps, layerNormMaps, r -> more.apply(before.apply(r)));
  }
}
