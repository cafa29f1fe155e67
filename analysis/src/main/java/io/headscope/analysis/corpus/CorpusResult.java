package io.headscope.analysis.corpus;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadSummary;
import io.headscope.analysis.heads.LayerTokenTypes;
import java.util.List;
import java.util.Map;

/**
 * A corpus run's result: everything the CSV files, the app's charts and the tests need; no traces.
 *
 * @param model the model's name
 * @param corpus the inputs that were analysed (empty for a streamed file) and the skipped lines (file
 *     problems and inputs too long for the model; the first thousand of each for a streamed file)
 * @param layers the model's layers
 * @param heads heads per layer
 * @param perHead one summary per head, layer by layer
 * @param modelShares the share of all maps (inputs x heads) in each category: Kovaleva's stacked bar
 * @param perLayer token-type attention per layer (weight and norm-weighted), mean over inputs
 * @param analysed how many inputs were analysed
 * @param skipped how many lines were skipped (the corpus lists the first of them)
 */
public record CorpusResult(
    String model,
    Corpus corpus,
    int layers,
    int heads,
    List<HeadSummary> perHead,
    Map<HeadPattern, Double> modelShares,
    List<LayerTokenTypes> perLayer,
    int analysed,
    int skipped) {

  public CorpusResult {
    perHead = List.copyOf(perHead);
    modelShares = java.util.Collections.unmodifiableMap(new java.util.EnumMap<>(modelShares));
    perLayer = List.copyOf(perLayer);
  }

  public int inputs() {
    return analysed;
  }

  public HeadSummary head(io.headscope.model.core.Head h) {
    return perHead.get(h.layer() * heads + h.head());
  }
}
