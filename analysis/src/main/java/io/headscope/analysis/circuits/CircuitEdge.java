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
 * @param receiver a head of a later layer, a key/value group of a later layer (grouped-query attention: k and
 *     v), an MLP of the same or a later layer (an MLP reads its own layer's heads, but for GPT-NeoX's parallel
 *     residual), or the logits
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
    if (sender.kind() == CircuitNode.Kind.LOGITS || sender.kind() == CircuitNode.Kind.GROUP
        || receiver.kind() == CircuitNode.Kind.EMBEDDINGS) {
      throw new IllegalArgumentException("the logits and key/value groups send nothing, the embeddings receive nothing");
    }
    boolean fits = switch (receiver.kind()) {
      case HEAD -> input == Input.Q || input == Input.K || input == Input.V;
      case GROUP -> input == Input.K || input == Input.V;
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

  /** The receiver's side as {@code patch --receivers} writes it: {@code 9-6:q}, {@code 9-g2:k}, {@code mlp9}, {@code logits}. */
  public String receiverLabel() {
    return switch (input) {
      case Q, K, V -> receiver.label() + ":" + input.label();
      default -> receiver.label();
    };
  }

  /**
   * An edge of a BERT-shaped graph (every head its own keys and values, sequential residual): {@link
   * #parse(String, CircuitGraph)} on {@link CircuitGraph#of(int, int)}.
   */
  public static CircuitEdge parse(String s, int layers, int heads) {
    return parse(s, CircuitGraph.of(layers, heads));
  }

  /**
   * An edge as {@link #label()} writes it, {@code SENDER->RECEIVER}: senders {@code embed}, {@code L-H},
   * {@code mlpL}; receivers {@code L-H:q|k|v} ({@code L-H:q}, {@code L-gG:k|v} where keys and values are shared
   * by groups of query heads), {@code mlpL}, {@code logits} (1-based), checked against the graph; anything else
   * one line naming the forms.
   */
  public static CircuitEdge parse(String s, CircuitGraph graph) {
    int layers = graph.layers();
    int heads = graph.heads();
    String t = s == null ? "" : s.trim();
    int arrow = t.indexOf("->");
    String form = " (SENDER->RECEIVER: senders embed, L-H or mlpL; receivers " + (graph.grouped()
        ? "L-H:q, L-gG:k|v (key/value group G of " + graph.groups() + ")" : "L-H:q|k|v") + ", mlpL or logits; 1-based)";
    if (arrow < 0) {
      throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\" is not an edge" + form + ".");
    }
    CircuitNode sender = node(t.substring(0, arrow).trim(), graph, t, form);
    String r = t.substring(arrow + 2).trim();
    Input in;
    String node = r;
    int colon = r.indexOf(':');
    if (colon >= 0) {
      node = r.substring(0, colon);
      in = switch (r.substring(colon + 1).trim().toLowerCase(java.util.Locale.ROOT)) {
        case "q" -> Input.Q;
        case "k" -> Input.K;
        case "v" -> Input.V;
        default -> throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\": a head's input is q, k "
            + "or v" + form + ".");
      };
    } else {
      in = r.equalsIgnoreCase("logits") ? Input.LOGITS : Input.MLP;
    }
    CircuitNode receiver = r.equalsIgnoreCase("logits") ? CircuitNode.LOGITS : node(node.trim(), graph, t, form);
    if (receiver.kind() == CircuitNode.Kind.EMBEDDINGS || sender.kind() == CircuitNode.Kind.LOGITS) {
      throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\": the embeddings only send and the "
          + "logits only receive" + form + ".");
    }
    if (sender.kind() == CircuitNode.Kind.GROUP) {
      throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\": a key/value group only receives "
          + "(its heads send)" + form + ".");
    }
    boolean attention = receiver.kind() == CircuitNode.Kind.HEAD || receiver.kind() == CircuitNode.Kind.GROUP;
    if (attention && colon < 0) {
      throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\": name the " + (receiver.kind()
          == CircuitNode.Kind.GROUP ? "group's input, " + receiver.label() + ":k or :v" : "head's input, "
          + receiver.label() + ":q, :k or :v") + form + ".");
    }
    if (!attention && colon >= 0) {
      throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\": only a head has q, k and v inputs"
          + form + ".");
    }
    if (receiver.kind() == CircuitNode.Kind.HEAD && in != Input.Q && graph.grouped()) {
      int g = receiver.head() / graph.groupSize();
      throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\": head " + receiver.label() + " shares "
          + "its keys and values with its key/value group; write " + CircuitNode.group(receiver.layer(), g).label() + ":"
          + in.label() + form + ".");
    }
    if (receiver.kind() == CircuitNode.Kind.GROUP && in == Input.Q) {
      throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\": a key/value group has no q input "
          + "(each query head has its own)" + form + ".");
    }
    if (sender.stage() >= receiver.stage()) {
      throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\": " + sender.label()
          + " does not come before " + receiver.label() + " (a head reads the layers below it, an MLP its own layer's "
          + "heads too).");
    }
    CircuitEdge e = new CircuitEdge(sender, receiver, in);
    if (!graph.has(e)) {
      throw new io.headscope.model.core.HeadScopeException("--edges: \"" + t + "\": " + receiver.label() + " reads its "
          + "layer's input, not the layer's heads (GPT-NeoX's parallel residual: the MLP and the attention both read "
          + "the layer's input).");
    }
    return e;
  }

  private static CircuitNode node(String p, CircuitGraph graph, String whole, String form) {
    int layers = graph.layers();
    int heads = graph.heads();
    String lower = p.toLowerCase(java.util.Locale.ROOT);
    try {
      if (lower.equals("embed")) {
        return CircuitNode.EMBEDDINGS;
      }
      if (lower.equals("logits")) {
        return CircuitNode.LOGITS;
      }
      if (lower.startsWith("mlp")) {
        int l = Integer.parseInt(lower.substring(3));
        if (l >= 1 && l <= layers) {
          return CircuitNode.mlp(l - 1);
        }
      } else {
        int dash = lower.indexOf('-');
        int l = Integer.parseInt(lower.substring(0, dash));
        String rest = lower.substring(dash + 1);
        if (rest.startsWith("g") && graph.grouped()) {
          int g = Integer.parseInt(rest.substring(1));
          if (l >= 1 && l <= layers && g >= 1 && g <= graph.groups()) {
            return CircuitNode.group(l - 1, g - 1);
          }
        } else {
          int h = Integer.parseInt(rest);
          if (l >= 1 && l <= layers && h >= 1 && h <= heads) {
            return CircuitNode.head(l - 1, h - 1);
          }
        }
      }
    } catch (RuntimeException e) {
      // falls through to the one-line refusal
    }
    throw new io.headscope.model.core.HeadScopeException("--edges: \"" + whole + "\": \"" + p + "\" is not a node of "
        + "this model (layers 1-" + layers + ", heads 1-" + heads + (graph.grouped() ? ", key/value groups g1-g"
        + graph.groups() : "") + ")" + form + ".");
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
