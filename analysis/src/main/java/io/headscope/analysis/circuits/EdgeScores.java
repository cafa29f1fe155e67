package io.headscope.analysis.circuits;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * One score per edge: the estimated (EAP, EAP-IG) or exact change of the metric when that edge alone carries
 * the ablated value (docs/METHODS.md, "Edges"), patched minus clean. Negative: the edge carries the behaviour
 * (corrupting it lowers a logit difference).
 *
 * @param method {@code eap}, {@code eap-ig} or {@code exact}
 * @param steps EAP-IG's number of points on the path; 1 for EAP, 0 for exact
 * @param ablation what an ablated edge carries
 * @param metric the metric's CSV name ({@code logit_diff}, ...)
 * @param clean the metric on the clean run
 * @param corrupted the metric on the corrupted run (with mean ablation: every edge ablated)
 * @param edges the scored edges (every edge of the graph for EAP and EAP-IG, the chosen ones for exact)
 * @param scores {@code scores[i]} for {@code edges.get(i)}
 */
public record EdgeScores(String method, int steps, Ablation ablation, String metric, double clean, double corrupted,
    List<CircuitEdge> edges, double[] scores) {

  public EdgeScores {
    edges = List.copyOf(edges);
    scores = scores.clone();
    if (scores.length != edges.size()) {
      throw new IllegalArgumentException(edges.size() + " edges, " + scores.length + " scores");
    }
  }

  @Override
  public double[] scores() {
    return scores.clone();
  }

  public double score(int i) {
    return scores[i];
  }

  /**
   * The indices of the {@code n} edges of largest |score| (a circuit keeps the edges that matter either way,
   * as Hanna et al. 2024 do), the largest first; ties by the graph's order.
   */
  public int[] top(int n) {
    return IntStream.range(0, scores.length).boxed()
        .sorted(Comparator.<Integer>comparingDouble(i -> -Math.abs(scores[i])).thenComparingInt(i -> i))
        .limit(Math.max(0, n)).mapToInt(Integer::intValue).toArray();
  }

  /** The {@code n} edges of largest |score|, the largest first. */
  public List<CircuitEdge> topEdges(int n) {
    List<CircuitEdge> out = new ArrayList<>();
    for (int i : top(n)) {
      out.add(edges.get(i));
    }
    return out;
  }
}
