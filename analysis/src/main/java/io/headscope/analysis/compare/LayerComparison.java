package io.headscope.analysis.compare;

/**
 * A layer's means over its heads of {@link HeadComparison#cosine()} and {@link
 * HeadComparison#jsDivergence()}.
 *
 * @param layer 0-based
 */
public record LayerComparison(int layer, double cosine, double jsDivergence, int inputs) {}
