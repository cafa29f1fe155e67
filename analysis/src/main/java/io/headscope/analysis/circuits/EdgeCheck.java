package io.headscope.analysis.circuits;

/**
 * One edge's estimate beside its exact patch, for the screen's "click an edge" and the CLI's check.
 *
 * @param edge the edge
 * @param estimate the EAP or EAP-IG score (change of the metric, patched minus clean)
 * @param exact the exact edge patch's change of the metric (docs/METHODS.md, "Edges")
 */
public record EdgeCheck(CircuitEdge edge, double estimate, double exact) {}
