package io.headscope.analysis.circuits;

/**
 * A node of the circuit graph: the embeddings, one attention head, one layer's feed-forward block (MLP), or
 * the logits. Every node but the logits sends its output into later nodes' inputs; every node but the
 * embeddings receives (see {@link CircuitEdge}).
 *
 * @param kind what the node is
 * @param layer 0-based; -1 for the embeddings and the logits
 * @param head 0-based for a head (for a key/value group: the group); -1 otherwise
 */
public record CircuitNode(Kind kind, int layer, int head) {

  /** What a node is. */
  public enum Kind {
    /** The token, position and segment embeddings (after BERT's embedding LayerNorm): {@code hook_embed}. */
    EMBEDDINGS,
    /** One attention head; its output is {@code z^h W_O^h} ({@code attn.hook_result}, no bias). */
    HEAD,
    /** One layer's feed-forward block; its output is {@code hook_mlp_out} (with its bias). */
    MLP,
    /**
     * A key/value group of a grouped-query layer (Llama's kin with fewer key/value heads than query heads): the
     * query heads {@code g r .. g r + r - 1} ({@code r} = heads / key/value heads) read one key and one value
     * projection of one copy of the layer's input, so a k or v edge enters the group, not a head. It only
     * receives (k and v); its heads send.
     */
    GROUP,
    /** The output: what the unembedding (BERT's MLM head) reads, the last layer's stream. */
    LOGITS
  }

  public static final CircuitNode EMBEDDINGS = new CircuitNode(Kind.EMBEDDINGS, -1, -1);
  public static final CircuitNode LOGITS = new CircuitNode(Kind.LOGITS, -1, -1);

  public CircuitNode {
    boolean ok = switch (kind) {
      case EMBEDDINGS, LOGITS -> layer == -1 && head == -1;
      case HEAD, GROUP -> layer >= 0 && head >= 0;
      case MLP -> layer >= 0 && head == -1;
    };
    if (!ok) {
      throw new IllegalArgumentException(kind + " at layer " + layer + ", head " + head);
    }
  }

  public static CircuitNode head(int layer, int head) {
    return new CircuitNode(Kind.HEAD, layer, head);
  }

  /** Key/value group {@code group} of layer {@code layer}, 0-based. */
  public static CircuitNode group(int layer, int group) {
    return new CircuitNode(Kind.GROUP, layer, group);
  }

  public static CircuitNode mlp(int layer) {
    return new CircuitNode(Kind.MLP, layer, -1);
  }

  /**
   * Where the node sits in the forward order, for drawing by layer and for "before": the embeddings 0, the
   * heads of layer l at {@code 2 l + 1}, its MLP at {@code 2 l + 2} (it reads that layer's heads), the logits
   * at {@code 2 L + 1} for a model of L layers ({@link Integer#MAX_VALUE} here, which sorts after everything).
   */
  public int stage() {
    return switch (kind) {
      case EMBEDDINGS -> 0;
      case HEAD, GROUP -> 2 * layer + 1;
      case MLP -> 2 * layer + 2;
      case LOGITS -> Integer.MAX_VALUE;
    };
  }

  /**
   * {@code embed}, {@code 3-5} (a head, 1-based layer-head as {@code patch} writes heads), {@code 3-g2} (key/value
   * group 2 of layer 3), {@code mlp3}, {@code logits}.
   */
  public String label() {
    return switch (kind) {
      case EMBEDDINGS -> "embed";
      case HEAD -> (layer + 1) + "-" + (head + 1);
      case GROUP -> (layer + 1) + "-g" + (head + 1);
      case MLP -> "mlp" + (layer + 1);
      case LOGITS -> "logits";
    };
  }

  @Override
  public String toString() {
    return label();
  }
}
