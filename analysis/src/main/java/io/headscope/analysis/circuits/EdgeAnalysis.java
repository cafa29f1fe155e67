package io.headscope.analysis.circuits;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.model.BertModel;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Edges and circuits of one clean input against its ablation (docs/METHODS.md, "Edges" and "Circuits"): exact
 * edge patching of chosen edges, EAP and EAP-IG for every edge, and a circuit's faithfulness. Every score is a
 * change of the metric, the edge ablated minus clean (noising).
 */
public final class EdgeAnalysis {
  private final EdgeRuns runs;
  private final EdgeForward forward;
  private Double empty;

  private EdgeAnalysis(EdgeRuns runs) {
    this.runs = runs;
    this.forward = new EdgeForward(runs);
  }

  /**
   * @param corruptedSet with {@link Ablation#MEAN}, the inputs whose outputs are averaged (the clean input's
   *     length each); ignored with {@link Ablation#CORRUPTED}
   */
  public static EdgeAnalysis of(BertModel model, PatchInputs in, TargetMetric metric, Ablation ablation,
      List<Encoding> corruptedSet) {
    return new EdgeAnalysis(EdgeRuns.of(model, in, metric, ablation, corruptedSet));
  }

  /** For tests of the first-order limit: every ablated value moved only {@code scale} of the way from clean. */
  EdgeAnalysis scaled(double scale) {
    return new EdgeAnalysis(runs.scaled(scale));
  }

  EdgeRuns runs() {
    return runs;
  }

  public CircuitGraph graph() {
    return runs.graph;
  }

  public Ablation ablation() {
    return runs.ablation;
  }

  public String metricColumn() {
    return runs.metric.column();
  }

  /** The metric of the clean run. */
  public double clean() {
    return runs.cleanMetric;
  }

  /** The metric of the corrupted run. */
  public double corrupted() {
    return runs.corruptedMetric;
  }

  /** EAP: every edge's first-order estimate from the clean run's gradient (one backward pass). */
  public EdgeScores eap() {
    return new EdgeAttribution(runs, forward).scores(0);
  }

  /** EAP-IG with {@code steps} points on the path of the input embeddings (one batched backward pass). */
  public EdgeScores eapIg(int steps) {
    if (steps < 1) {
      throw new IllegalArgumentException("EAP-IG needs at least one step, got " + steps);
    }
    return new EdgeAttribution(runs, forward).scores(steps);
  }

  /** The metric with every edge ablated: the corrupted run's with corrupted ablation (computed, not assumed). */
  public synchronized double empty() {
    if (empty == null) {
      boolean[] all = new boolean[runs.graph.edges().size()];
      java.util.Arrays.fill(all, true);
      empty = forward.metric(all);
    }
    return empty;
  }

  /** The metric with these edges ablated and every other kept. */
  public double metricWithout(List<CircuitEdge> ablated) {
    Map<CircuitEdge, Integer> index = runs.graph.index();
    boolean[] mask = new boolean[runs.graph.edges().size()];
    for (CircuitEdge e : ablated) {
      mask[indexOf(index, e)] = true;
    }
    return forward.metric(mask);
  }

  /** Exact edge patching: each edge alone ablated, the change of the metric from clean. */
  public EdgeScores exact(List<CircuitEdge> edges, BooleanSupplier cancelled) {
    double[] s = new double[edges.size()];
    for (int i = 0; i < edges.size(); i++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("edge patching cancelled");
      }
      s[i] = metricWithout(List.of(edges.get(i))) - runs.cleanMetric;
    }
    return new EdgeScores("exact", 0, runs.ablation, runs.metric.column(), runs.cleanMetric, runs.corruptedMetric,
        edges, s);
  }

  public EdgeScores exact(List<CircuitEdge> edges) {
    return exact(edges, () -> false);
  }

  /** The metric when only {@code circuit}'s edges are kept and every other edge is ablated. */
  public double circuitMetric(List<CircuitEdge> circuit) {
    Map<CircuitEdge, Integer> index = runs.graph.index();
    boolean[] mask = new boolean[runs.graph.edges().size()];
    java.util.Arrays.fill(mask, true);
    for (CircuitEdge e : circuit) {
      mask[indexOf(index, e)] = false;
    }
    return forward.metric(mask);
  }

  /**
   * A circuit of the top-N edges by |score| at each N, and the metric it keeps (every edge outside ablated), with
   * the {@code checks} edges of largest |estimate| patched exactly one by one and the estimates' Spearman
   * correlation with those exact patches.
   */
  public Faithfulness faithfulness(EdgeScores ranking, int[] sizes, int checks, BooleanSupplier cancelled) {
    double full = runs.cleanMetric;
    double none = empty();
    List<Faithfulness.Point> points = new ArrayList<>();
    int[] sorted = java.util.Arrays.stream(sizes).map(n -> Math.min(Math.max(n, 0), ranking.edges().size())).distinct()
        .sorted().toArray();
    for (int n : sorted) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("faithfulness cancelled");
      }
      double m = circuitMetric(ranking.topEdges(n));
      points.add(new Faithfulness.Point(n, m, (m - none) / (full - none)));
    }
    List<CircuitEdge> top = ranking.topEdges(checks);
    EdgeScores exact = exact(top, cancelled);
    int[] idx = ranking.top(checks);
    List<EdgeCheck> out = new ArrayList<>();
    double[] est = new double[idx.length];
    for (int i = 0; i < idx.length; i++) {
      est[i] = ranking.score(idx[i]);
      out.add(new EdgeCheck(top.get(i), est[i], exact.score(i)));
    }
    return new Faithfulness(ranking.method(), runs.ablation, runs.metric.column(), full, none, points,
        Spearman.of(est, exact.scores()), out);
  }

  private static int indexOf(Map<CircuitEdge, Integer> index, CircuitEdge e) {
    Integer i = index.get(e);
    if (i == null) {
      throw new IllegalArgumentException(e.label() + " is not an edge of this model");
    }
    return i;
  }
}
