package io.headscope.analysis.flow;

import org.jgrapht.alg.flow.PushRelabelMFImpl;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleDirectedWeightedGraph;

/**
 * Attention flow (Abnar & Zuidema 2020): the layered graph with a node per token per layer 0..L and an
 * edge from token i at layer l-1 to token j at layer l of capacity {@code Ahat_l[j][i]}
 * ({@link Rollout#mixed}); the flow from input token i to output token j at layer L is the maximum
 * flow between the two nodes, computed with JGraphT's push-relabel.
 *
 * @param raw {@code [j][i]}: the maximum flow into output token j from input token i
 * @param normalized the same with each row divided by its sum
 */
public record AttentionFlow(double[][] raw, double[][] normalized) {

  /** The flows into the outputs of the last of {@code attention}'s layers ({@code [layer][head][q][k]}). */
  public static AttentionFlow of(float[][][][] attention) {
    return of(attention, attention.length);
  }

  /** The flows into the outputs of layer {@code upTo} (1..L), over layers 1..upTo. */
  public static AttentionFlow of(float[][][][] attention, int upTo) {
    return of(attention[0][0].length, upTo, l -> Rollout.mixed(attention[l]));
  }

  /**
   * The flows into the outputs of the last layer of a trace, full or of summaries (whose maps are recomputed on
   * demand, one head at a time: the same numbers, so the same flows).
   */
  public static AttentionFlow of(io.headscope.model.AttentionTrace t) {
    if (t.hasFullMaps()) {
      return of(t.attention());
    }
    Rollout.requireAsRun(t);
    return of(t.tokens().size(), t.layers(), l -> Rollout.mixed(t.heads(),
        h -> t.map(new io.headscope.model.core.Head(l, h))));
  }

  /** The flows over layers 1..upTo whose {@code Ahat} (0-based layer) {@code mixed} gives, on {@code n} tokens. */
  private static AttentionFlow of(int n, int upTo, java.util.function.IntFunction<double[][]> mixedOfLayer) {
    SimpleDirectedWeightedGraph<Integer, DefaultWeightedEdge> g = new SimpleDirectedWeightedGraph<>(DefaultWeightedEdge.class);
    for (int v = 0; v < (upTo + 1) * n; v++) {
      g.addVertex(v);
    }
    for (int l = 1; l <= upTo; l++) {
      double[][] a = mixedOfLayer.apply(l - 1);
      for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++) {
          if (a[j][i] > 0) {
            DefaultWeightedEdge e = g.addEdge((l - 1) * n + i, l * n + j);
            g.setEdgeWeight(e, a[j][i]);
          }
        }
      }
    }
    PushRelabelMFImpl<Integer, DefaultWeightedEdge> maxFlow = new PushRelabelMFImpl<>(g, 1e-12);
    double[][] raw = new double[n][n];
    double[][] normalized = new double[n][n];
    for (int j = 0; j < n; j++) {
      double sum = 0;
      for (int i = 0; i < n; i++) {
        raw[j][i] = maxFlow.getMaximumFlowValue(i, upTo * n + j);
        sum += raw[j][i];
      }
      for (int i = 0; i < n; i++) {
        normalized[j][i] = sum > 0 ? raw[j][i] / sum : 0;
      }
    }
    return new AttentionFlow(raw, normalized);
  }
}
