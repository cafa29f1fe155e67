package io.headscope.model.engine;

/**
 * @param loss the masked-LM loss that was differentiated
 * @param targets the targets it used (the pass's own predictions when none were given)
 * @param headMask {@code dLoss/dm} {@code [layer][head]}, or null when differentiating at a point
 * @param point {@code dLoss/d(value at the point)}, shaped as the point, or null
 */
public record GradientResult(double loss, long[] targets, double[][] headMask, Activation point) {}
