package io.headscope.analysis.ablation;

/**
 * One labelled input in the task sweep: its gold class, and the classifier's prediction and gold-class
 * log-probability intact and with each head (and, if swept, each whole layer) switched off alone.
 * Per-input outcomes, not scores, because macro-F1 is not a mean over inputs: the scores of any set of
 * inputs (a corpus, shards put back together) are computed from these by {@link TaskResult#of}.
 * Indices are 0-based {@code [layer][head]}.
 *
 * @param layerPredicted per whole layer off; null (as {@code layerLoglik}) when layers were not swept
 */
public record TaskOutcome(int gold, int basePredicted, double baseLoglik, int[][] headPredicted,
    double[][] headLoglik, int[] layerPredicted, double[] layerLoglik) {}
