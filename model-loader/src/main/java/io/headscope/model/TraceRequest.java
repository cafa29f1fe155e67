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
 * @param keep what the trace keeps of the maps: every full map, or summaries and thumbnails with any map
 *     recomputed on demand ({@link Keep})
 * @param thumbnailSide with {@link Keep#SUMMARIES}, the side the thumbnails are max-pooled to
 */
public record TraceRequest(List<Encoding> inputs, HeadMask mask, int top, AttentionTrace.Maps maps,
    boolean layerNormMaps, UnaryOperator<RunRequest> adjust, Keep keep, int thumbnailSide) {

  /** How many tokens a prediction lists unless {@link #top(int)} says otherwise. */
  public static final int DEFAULT_TOP = 5;
  /** The thumbnails' side unless {@link #summaries(int)} says otherwise: the app's grid pools to 128. */
  public static final int DEFAULT_THUMBNAIL_SIDE = 128;

  /** What a trace keeps of its maps. */
  public enum Keep {
    /** Every map of every head, {@link AttentionTrace#attention()}: fine for bert-base's 144 heads. */
    FULL_MAPS,
    /**
     * No full map: per head the summaries and a thumbnail ({@link HeadSummaries}), and each layer's queries
     * and group keys, from which {@link AttentionTrace#map} recomputes any head's map when asked, equal to
     * the map {@link #FULL_MAPS} keeps ({@link io.headscope.model.engine.Engine#attentionMap}). A 1B model
     * at 2,048 tokens: 704 maps of 4M cells are 11.8 GB; its queries and keys 0.4 GB.
     */
    SUMMARIES
  }

  public TraceRequest {
    inputs = List.copyOf(inputs);
    if (top < 0) {
      throw new IllegalArgumentException("top " + top + " < 0");
    }
    if (thumbnailSide < 1) {
      throw new IllegalArgumentException("thumbnail side " + thumbnailSide + " < 1");
    }
    if (keep == Keep.SUMMARIES && maps == AttentionTrace.Maps.AS_RUN && !mask.isEmpty()) {
      // the maps recomputed on demand are what each head computed; a switched-off head's as-run map is not kept
      throw new IllegalArgumentException("a trace of summaries keeps the maps as computed, not as run");
    }
  }

  /** Every map kept, {@link Keep#FULL_MAPS}, with {@link #DEFAULT_THUMBNAIL_SIDE} for a later {@link #summaries()}. */
  public TraceRequest(List<Encoding> inputs, HeadMask mask, int top, AttentionTrace.Maps maps,
      boolean layerNormMaps, UnaryOperator<RunRequest> adjust) {
    this(inputs, mask, top, maps, layerNormMaps, adjust, Keep.FULL_MAPS, DEFAULT_THUMBNAIL_SIDE);
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
    return new TraceRequest(inputs, m, top, maps, layerNormMaps, adjust, keep, thumbnailSide);
  }

  public TraceRequest top(int k) {
    return new TraceRequest(inputs, mask, k, maps, layerNormMaps, adjust, keep, thumbnailSide);
  }

  public TraceRequest maps(AttentionTrace.Maps m) {
    return new TraceRequest(inputs, mask, top, m, layerNormMaps, adjust, keep, thumbnailSide);
  }

  /** Also Kobayashi's layer-level norm maps ({@link AttentionTrace#layerNorms()}). */
  public TraceRequest layerNorms() {
    return layerNorms(true);
  }

  public TraceRequest layerNorms(boolean on) {
    return new TraceRequest(inputs, mask, top, maps, on, adjust, keep, thumbnailSide);
  }

  /** Adds changes to the run, applied after the head mask and after any added before. */
  public TraceRequest adjust(UnaryOperator<RunRequest> more) {
    UnaryOperator<RunRequest> before = adjust;
    return new TraceRequest(inputs, mask, top, maps, layerNormMaps, r -> more.apply(before.apply(r)), keep,
        thumbnailSide);
  }

  /**
   * Keeps summaries instead of full maps ({@link Keep#SUMMARIES}), thumbnails of {@link
   * #DEFAULT_THUMBNAIL_SIDE}: for a model whose maps do not fit in memory.
   */
  public TraceRequest summaries() {
    return summaries(DEFAULT_THUMBNAIL_SIDE);
  }

  /** {@link Keep#SUMMARIES} with thumbnails max-pooled to {@code side} cells a side. */
  public TraceRequest summaries(int side) {
    return new TraceRequest(inputs, mask, top, maps, layerNormMaps, adjust, Keep.SUMMARIES, side);
  }

  /** Every full map kept ({@link Keep#FULL_MAPS}, the default). */
  public TraceRequest fullMaps() {
    return new TraceRequest(inputs, mask, top, maps, layerNormMaps, adjust, Keep.FULL_MAPS, thumbnailSide);
  }
}
