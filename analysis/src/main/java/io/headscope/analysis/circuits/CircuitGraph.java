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
 * <p>Grouped-query attention ({@code groups < heads}): a layer's k and v inputs are its key/value groups', each
 * read by {@code heads / groups} query heads ({@link CircuitNode.Kind#GROUP}), listed after the layer's heads'
 * q inputs; q stays per head. GPT-NeoX's parallel residual: an MLP reads its layer's input, so no head sends into
 * its own layer's MLP.
 *
 * <p>bert-base (12 x 12) has 1 + 144 + 12 + 1 = 158 nodes and 32,491 edges.
 *
 * @param nodes the senders in forward order, then the logits (key/value groups receive only and are not here)
 */
public record CircuitGraph(int layers, int heads, int groups, boolean parallel, List<CircuitNode> nodes,
    List<CircuitEdge> edges) {

  public CircuitGraph {
    nodes = List.copyOf(nodes);
    edges = List.copyOf(edges);
  }

  /** Every head its own keys and values, sequential residual (BERT's kin, GPT-2). */
  public static CircuitGraph of(int layers, int heads) {
    return of(layers, heads, heads, false);
  }

  /** The graph of a model: its key/value heads, and whether its residual is GPT-NeoX's parallel one. */
  public static CircuitGraph of(io.headscope.model.BertModel model) {
    io.headscope.model.core.Parts parts = model.config().parts();
    return of(model.config().numHiddenLayers(), model.config().numAttentionHeads(), parts.keyValueHeads(),
        parts.residual() == io.headscope.model.core.Parts.Residual.PARALLEL);
  }

  /**
   * @param groups key/value heads per layer ({@code heads} unless grouped-query)
   * @param parallel GPT-NeoX's parallel residual: the MLP reads the layer's input
   */
  public static CircuitGraph of(int layers, int heads, int groups, boolean parallel) {
    if (layers < 1 || heads < 1 || groups < 1 || heads % groups != 0) {
      throw new IllegalArgumentException(layers + " layers, " + heads + " heads, " + groups + " key/value heads");
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
    boolean grouped = groups < heads;
    List<CircuitEdge> edges = new ArrayList<>();
    for (CircuitNode r : nodes) {
      List<CircuitEdge.Input> inputs = switch (r.kind()) {
        case HEAD -> grouped ? List.of(CircuitEdge.Input.Q)
            : List.of(CircuitEdge.Input.Q, CircuitEdge.Input.K, CircuitEdge.Input.V);
        case MLP -> List.of(CircuitEdge.Input.MLP);
        case LOGITS -> List.of(CircuitEdge.Input.LOGITS);
        default -> List.of();
      };
      for (CircuitEdge.Input in : inputs) {
        addInto(edges, nodes, r, in, parallel);
      }
      if (grouped && r.kind() == CircuitNode.Kind.HEAD && r.head() == heads - 1) {
        // the layer's key/value groups, after its last head's q
        for (int g = 0; g < groups; g++) {
          addInto(edges, nodes, CircuitNode.group(r.layer(), g), CircuitEdge.Input.K, parallel);
          addInto(edges, nodes, CircuitNode.group(r.layer(), g), CircuitEdge.Input.V, parallel);
        }
      }
    }
    return new CircuitGraph(layers, heads, groups, parallel, nodes, edges);
  }

  private static void addInto(List<CircuitEdge> edges, List<CircuitNode> nodes, CircuitNode r, CircuitEdge.Input in,
      boolean parallel) {
    for (CircuitNode s : nodes) {
      if (s.kind() != CircuitNode.Kind.LOGITS && s.stage() < r.stage() && !(parallel && sameLayerHeadIntoMlp(s, r))) {
        edges.add(new CircuitEdge(s, r, in));
      }
    }
  }

  private static boolean sameLayerHeadIntoMlp(CircuitNode s, CircuitNode r) {
    return r.kind() == CircuitNode.Kind.MLP && s.kind() == CircuitNode.Kind.HEAD && s.layer() == r.layer();
  }

  /** Whether keys and values are shared by groups of query heads (fewer key/value heads than query heads). */
  public boolean grouped() {
    return groups < heads;
  }

  /** Query heads per key/value group. */
  public int groupSize() {
    return heads / groups;
  }

  /** Whether {@code e} is an edge of this graph (its nodes in range, its input the graph's, not across a parallel layer). */
  public boolean has(CircuitEdge e) {
    for (CircuitNode n : List.of(e.sender(), e.receiver())) {
      boolean in = switch (n.kind()) {
        case EMBEDDINGS, LOGITS -> true;
        case HEAD -> n.layer() < layers && n.head() < heads;
        case GROUP -> grouped() && n.layer() < layers && n.head() < groups;
        case MLP -> n.layer() < layers;
      };
      if (!in) {
        return false;
      }
    }
    if (grouped() && e.receiver().kind() == CircuitNode.Kind.HEAD && e.input() != CircuitEdge.Input.Q) {
      return false;
    }
    return !(parallel && sameLayerHeadIntoMlp(e.sender(), e.receiver()));
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
