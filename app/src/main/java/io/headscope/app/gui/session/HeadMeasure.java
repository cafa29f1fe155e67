package io.headscope.app.gui.session;

/**
 * A number per head that a screen has computed on the current model (a relation's syntax accuracy, a
 * sweep's effect), offered beside the built-in scores to the ranking of heads in the main window.
 *
 * @param source the screen that published it (one measure per screen: a newer one replaces it)
 * @param name what it is, as the ranking lists it: {@code det accuracy (Linguistics)}
 * @param values {@code [layer][head]}; NaN where not measured
 * @param largestFirst whether the heads that matter most have the largest values (the ranking's default order)
 */
public record HeadMeasure(String source, String name, double[][] values, boolean largestFirst) {}
