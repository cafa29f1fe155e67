package io.headscope.analysis.circuits;

/**
 * An edge of the circuit graph: the sender's output as it enters one input of a later receiver. A head has
 * three inputs (its query, key and value are computed from separate copies of its layer's input, so each
 * can see a different stream); an MLP and the logits have one.
 *
 * <p>What "the sender's output enters the receiver's input" means exactly (docs/METHODS.md, "Edges"): the
 * receiver's input is recomputed from every component's output, the sender's swapped, all others held; in a
 * pre-LayerNorm model (GPT-2, llama) that is the stream plus the sender's change, in BERT (post-LayerNorm) the
 * LayerNorms on the way are recomputed too.
 *
 * @param sender the embeddings, a head or an MLP
 * @param receiver a head of a later layer, an MLP of the same or a later layer (an MLP reads its own layer's
 *     heads), or the logits
 * @param input which of the receiver's inputs: {@code Q}, {@code K} or {@code V} for a head, {@code MLP} for
 *     an MLP, {@code LOGITS} for the logits
 */
public record CircuitEdge(CircuitNode sender, CircuitNode receiver, Input input) {

  /** The receiver's input an edge enters. */
  public enum Input {
    Q, K, V, MLP, LOGITS;

    /** {@code q}, {@code k}, {@code v}, {@code mlp}, {@code logits}: the CSV's {@code input} column. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public CircuitEdge {
    if (sender.kind() == CircuitNode.Kind.LOGITS || receiver.kind() == CircuitNode.Kind.EMBEDDINGS) {
      throw new IllegalArgumentException("the logits send nothing, the embeddings receive nothing");
    }
    boolean fits = switch (receiver.kind()) {
      case HEAD -> input == Input.Q || input == Input.K || input == Input.V;
      case MLP -> input == Input.MLP;
      default -> input == Input.LOGITS;
    };
    if (!fits) {
      throw new IllegalArgumentException(receiver.label() + " has no " + input + " input");
    }
    if (sender.stage() >= receiver.stage()) {
      throw new IllegalArgumentException(sender.label() + " does not come before " + receiver.label());
    }
  }

  /** The receiver's side as {@code patch --receivers} writes it: {@code 9-6:q}, {@code mlp9}, {@code logits}. */
  public String receiverLabel() {
    return switch (input) {
      case Q, K, V -> receiver.label() + ":" + input.label();
      default -> receiver.label();
    };
  }

  /** {@code 5-1->9-6:q}. */
  public String label() {
    return sender.label() + "->" + receiverLabel();
  }

  @Override
  public String toString() {
    return label();
  }
}
