package io.headscope.analysis.circuits;

import java.util.List;

/**
 * How much of the behaviour a circuit of the top-N edges keeps, at several N: the metric when every edge
 * outside the circuit carries the ablated value and every edge inside it carries its sender's output in this
 * same run (ACDC's definition; docs/METHODS.md, "Circuits"), each N run exactly.
 *
 * @param method the scores the edges were ranked by ({@code eap}, {@code eap-ig}, {@code exact})
 * @param ablation what an edge outside the circuit carries
 * @param metric the metric's CSV name
 * @param full the metric with every edge in (the clean run)
 * @param empty the metric with every edge ablated (the corrupted run, with corrupted ablation)
 * @param points the curve, N ascending
 * @param spearman the estimates' Spearman rank correlation with exact edge patching over {@code checks}, NaN when
 *     fewer than 2 edges were checked
 * @param checks the edges checked one by one (estimate beside exact patch)
 */
public record Faithfulness(String method, Ablation ablation, String metric, double full, double empty,
    List<Point> points, double spearman, List<EdgeCheck> checks) {

  public Faithfulness {
    points = List.copyOf(points);
    checks = List.copyOf(checks);
  }

  /**
   * One point of the curve.
   *
   * @param edges N, the circuit's number of edges
   * @param metric the metric with only the circuit's edges clean
   * @param kept {@code (metric - empty) / (full - empty)}: 1 the whole behaviour, 0 none of it
   */
  public record Point(int edges, double metric, double kept) {}
}
