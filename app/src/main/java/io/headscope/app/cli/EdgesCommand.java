package io.headscope.app.cli;

import io.headscope.analysis.circuits.CircuitEdge;
import io.headscope.analysis.circuits.CircuitGraph;
import io.headscope.analysis.circuits.EdgeAnalysis;
import io.headscope.analysis.circuits.EdgeCsv;
import io.headscope.analysis.circuits.EdgeScores;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "edges", mixinStandardHelpOptions = true,
    description = {"Edge scores of the circuit graph (embeddings, every head, every MLP into every later head's "
        + "q, k or v input, MLP input and the logits): the change of the metric when that edge alone carries the "
        + "ablated value (noising, from the clean run). --method eap estimates every edge from one backward pass, "
        + "eap-ig from --steps points along the input embeddings, exact patches the edges one by one (--edges, or "
        + "the --top N that EAP ranks highest).",
        "CSV: sender,receiver,input,score, the largest |score| first; nodes embed, L-H (1-based), mlpL, logits; "
            + "input q|k|v|mlp|logits. Ctrl-C cancels and writes nothing."})
final class EdgesCommand implements Callable<Integer> {
  @Mixin EdgeOptions edge;

  @Option(names = "--top", defaultValue = "0", paramLabel = "N", description = "Write only the N edges of largest "
      + "|score| (0: every edge; with --method exact and no --edges: patch EAP's top N, default 20).")
  int top;

  @Option(names = "--edges", paramLabel = "S->R[,...]", description = "With --method exact: the edges to patch, e.g. "
      + "9-6->10-7:q,embed->mlp1,11-3->logits.")
  String edges;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    edge.check();
    String method = edge.method();
    if (edges != null && !method.equals("exact")) {
      throw new UsageException("--edges goes with --method exact (eap and eap-ig score every edge).");
    }
    if (top < 0) {
      throw new UsageException("--top must be 0 or more, got " + top + ".");
    }
    output.check();
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      List<CircuitEdge> chosen = null;
      if (edges != null) {
        chosen = new ArrayList<>();
        for (String part : edges.split(",")) {
          try {
            // the model's own graph: key/value groups (grouped queries), no head into its layer's MLP (parallel)
            chosen.add(CircuitEdge.parse(part, CircuitGraph.of(bert)));
          } catch (HeadScopeException e) {
            throw new UsageException(e.getMessage(), e);
          }
        }
      }
      EdgeAnalysis a = edge.open(bert);
      long start = System.nanoTime();
      EdgeScores s;
      try {
        s = switch (method) {
          case "eap" -> a.eap();
          case "eap-ig" -> a.eapIg(edge.steps);
          default -> a.exact(chosen != null ? chosen : a.eap().topEdges(top == 0 ? 20 : top), cancel::requested);
        };
      } catch (CancellationException e) {
        return Cancellation.cancelled();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      output.write(o -> EdgeCsv.write(s, top, o)); // says "wrote" itself
      int best = s.top(1).length == 0 ? -1 : s.top(1)[0];
      System.err.printf(Locale.ROOT, "headscope: %s %s, %s ablation: clean %.4f, corrupted %.4f; %d edges took %.2f s"
          + "%s%n", method, s.metric(), s.ablation().label(), s.clean(), s.corrupted(), s.edges().size(), seconds,
          best < 0 ? "" : String.format(Locale.ROOT, "; largest %s: %.4f", s.edges().get(best).label(), s.score(best)));
    }
    return 0;
  }
}
