package io.headscope.analysis.linguistics.probes;

/**
 * One probe trained on TRAIN and scored on the treebank.
 *
 * @param probe {@code head-selection} or {@code edge}
 * @param trainSentences TRAIN sentences the probe was fitted on (all usable ones)
 * @param trainSkipped TRAIN sentences it could not use
 * @param testSentences treebank sentences scored
 * @param testSkipped treebank sentences it could not use
 * @param testItems words (head selection) or word pairs (edge) scored
 * @param accuracy UAS or edge accuracy, NaN with no item
 * @param accuracyWithoutRoots head selection: UAS over the words whose gold head is a word (what a
 *     single head is scored on, less the roots it can never get); NaN for the edge probe
 * @param l2 the strength chosen on held-out TRAIN sentences
 * @param heldOutAccuracy each strength of the grid's held-out accuracy
 * @param seed the seed of the held-out split and of the edge samples
 * @param weights the final fit, raw feature units
 */
public record ProbeResult(String probe, int trainSentences, int trainSkipped, int testSentences, int testSkipped,
    long testItems, double accuracy, double accuracyWithoutRoots, double l2, double[] heldOutAccuracy, long seed,
    Weights weights) {
  public static final String HEAD_SELECTION = "head-selection";
  public static final String EDGE = "edge";
}
