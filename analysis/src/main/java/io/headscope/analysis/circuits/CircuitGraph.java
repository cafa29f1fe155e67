package io.headscope.analysis.circuits;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole graph of a model of {@code layers} layers and {@code heads} heads per layer: nodes in forward
 * order, and every edge from each sender to each later receiver's input. Edges are listed by receiver in forward
 * order (a head's q, k, v edges together), senders in forward order within a receiver: the order of
 * {@link EdgeScores#scores()}.
 *
 * <p>bert-base (12 x 12) has 1 + 144 + 12 + 1 = 158 nodes and 32,491 edges.
 */
public record CircuitGraph(int layers, int heads, List<CircuitNode> nodes, List<CircuitEdge> edges) {

  public CircuitGraph {
    nodes = List.copyOf(nodes);
    edges = List.copyOf(edges);
  }

  public static CircuitGraph of(int layers, int heads) {
    if (layers < 1 || heads < 1) {
      throw new IllegalArgumentException(layers + " layers, " + heads + " heads");
    }
    List<CircuitNode> nodes = new ArrayList<>();
    nodes.add(CircuitNode.EMBEDDINGS);
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        nodes.add(CircuitNode.head(l, h));
      }
      nodes.add(CircuitNode.mlp(l));
    }
    nodes.add(CircuitNode.LOGITS);
    List<CircuitEdge> edges = new ArrayList<>();
    for (CircuitNode r : nodes) {
      List<CircuitEdge.Input> inputs = switch (r.kind()) {
        case EMBEDDINGS -> List.of();
        case HEAD -> List.of(CircuitEdge.Input.Q, CircuitEdge.Input.K, CircuitEdge.Input.V);
        case MLP -> List.of(CircuitEdge.Input.MLP);
        case LOGITS -> List.of(CircuitEdge.Input.LOGITS);
      };
      for (CircuitEdge.Input in : inputs) {
        for (CircuitNode s : nodes) {
          if (s.kind() != CircuitNode.Kind.LOGITS && s.stage() < r.stage()) {
            edges.add(new CircuitEdge(s, r, in));
          }
        }
      }
    }
    return new CircuitGraph(layers, heads, nodes, edges);
  }

  /** The senders: every node but the logits, in forward order. */
  public List<CircuitNode> senders() {
    return nodes.subList(0, nodes.size() - 1);
  }

  /** Each edge's position in {@link #edges()}. */
  public Map<CircuitEdge, Integer> index() {
    Map<CircuitEdge, Integer> m = new HashMap<>();
    for (int i = 0; i < edges.size(); i++) {
      m.put(edges.get(i), i);
    }
    return Collections.unmodifiableMap(m);
  }
}
