package io.headscope.app.render.page;

import io.headscope.analysis.export.JsonExport;
import io.headscope.analysis.favor.FavorInput;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * What the interactive page shows about one input, as plain arrays: the intact maps, the maps as run with
 * the heads switched off, every head's queries and keys (the neuron view), the categories and the
 * predictions before and after. Built once on the model's thread; {@link InteractivePage} writes it.
 *
 * @param model the model's name
 * @param text segment a as typed
 * @param pair segment b, or null
 * @param intact the intact model's trace (maps, predictions before)
 * @param asRun the trace with {@code mask} applied, maps as run ({@code intact} itself when no head is off)
 * @param q {@code [layer][head][token][dh]}: each head's queries in the intact pass
 * @param k {@code [layer][head][token][dh]}: its keys
 * @param headSize {@code dh}; the scores are {@code q.k / sqrt(dh)}
 * @param causal whether key {@code j > i} is masked out (GPT-2)
 * @param scores every head's category on the intact maps, head by head; null when withheld (a causal model)
 * @param classifier the classifier's method ({@code learned}, {@code rule})
 * @param predictionsJson what {@code headscope predict --disable} writes for the same input and heads, or null
 *     when the model predicts nothing
 * @param shown the maps the page opens on (the app's *Maps shown*; intact from the command line)
 * @param focus the head the neuron view opens on (the app's selected head), or null: the first head switched
 *     off, else 1-1; its query is the first mask token
 */
public record PageData(String model, String text, String pair, AttentionTrace intact, AttentionTrace asRun,
    float[][][][] q, float[][][][] k, int headSize, boolean causal, List<HeadScore> scores, String classifier,
    String predictionsJson, io.headscope.app.render.MapsShown shown, Head focus) {

  /**
   * The most bytes of float32 maps a page is made with (layers x heads x T^2 x 4): the line past which the app keeps
   * summaries instead of every map (issue 41). The page carries every map (and every q and k) inside it, so past
   * this it would be a file of that size that no browser opens well; {@code -Dheadscope.pageMapsUpTo=BYTES} moves it.
   */
  public static final long MAPS_UP_TO = Long.getLong("headscope.pageMapsUpTo", 256L << 20);

  /** Refuses, in one line and before any pass runs, an input whose maps pass {@code limit} bytes. */
  static void requireFits(int layers, int heads, int tokens, long limit) {
    long bytes = 4L * layers * heads * tokens * (long) tokens;
    if (bytes > limit) {
      throw new HeadScopeException("The interactive page carries every head's map, and this input's are " + (bytes >> 20)
          + " MB (" + layers + " layers x " + heads + " heads x " + tokens + "^2 tokens), past the " + (limit >> 20)
          + " MB a page is made with: shorten the input (the app shows its heads from summaries).");
    }
  }

  /** Top tokens listed per prediction, as {@code predict}'s default. */
  public static final int TOP = 5;

  /**
   * Runs the model on one input (three passes: intact, with the heads off, and one keeping q and k).
   * Not thread-safe, as {@link BertModel} is not: call it where the model's other work runs.
   */
  public static PageData build(BertModel bert, String text, String pair, HeadMask mask, HeadClassifier classifier) {
    if (text == null || text.isBlank()) {
      throw new HeadScopeException("Nothing to show: type a sentence first.");
    }
    Encoding input = bert.encode(text, pair);
    requireFits(bert.config().numHiddenLayers(), bert.config().numAttentionHeads(), input.length(), MAPS_UP_TO);
    AttentionTrace intact = bert.trace(TraceRequest.of(input).top(TOP)).get(0);
    AttentionTrace asRun = mask.isEmpty() ? intact
        : bert.trace(TraceRequest.of(input).mask(mask).top(TOP).maps(AttentionTrace.Maps.AS_RUN)).get(0);
    FavorInput qk = FavorInput.capture(bert, input);
    int layers = qk.layers();
    int heads = qk.heads();
    float[][][][] q = new float[layers][heads][][];
    float[][][][] k = new float[layers][heads][][];
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        q[l][h] = qk.q(l, h);
        k[l][h] = qk.k(l, h);
      }
    }
    List<HeadScore> scores = HeadClassifier.appliesTo(bert) ? classifier.classifyAll(intact) : null;
    String predictions = null;
    if (bert.hasMaskedLmHead() || bert.hasClassifier()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try {
        JsonExport.predictions(intact, asRun, bert.classLabels(), out);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      predictions = out.toString(StandardCharsets.UTF_8);
    }
    return new PageData(bert.name(), text, pair, intact, asRun, q, k, bert.config().headSize(),
        bert.config().family().causal(), scores, classifier.method().name().toLowerCase(java.util.Locale.ROOT),
        predictions, io.headscope.app.render.MapsShown.INTACT, null);
  }

  /** The same page opening on other maps (as run, difference: what the app shows when it exports). */
  public PageData opening(io.headscope.app.render.MapsShown m) {
    return new PageData(model, text, pair, intact, asRun, q, k, headSize, causal, scores, classifier,
        predictionsJson, m, focus);
  }

  /** The same page with its neuron view opening on {@code h} (the head the app shows). */
  public PageData focusing(Head h) {
    return new PageData(model, text, pair, intact, asRun, q, k, headSize, causal, scores, classifier,
        predictionsJson, shown, h);
  }

  /** The head the neuron view opens on: the one asked for, else the first head switched off, else 1-1. */
  public Head neuronHead() {
    if (focus != null) {
      return focus;
    }
    return disabled().stream().sorted(java.util.Comparator.comparingInt(Head::layer).thenComparingInt(Head::head))
        .findFirst().orElse(new Head(0, 0));
  }

  public int layers() {
    return intact.layers();
  }

  public int heads() {
    return intact.heads();
  }

  public int tokens() {
    return intact.tokens().size();
  }

  public Set<Head> disabled() {
    return asRun.mask().off();
  }
}
