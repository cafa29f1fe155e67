package io.headscope.analysis.circuits;

import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The model run with some edges ablated (docs/METHODS.md, "Edges" and "Circuits"): every receiver's input is
 * recomputed from each sender's output, the output of this same run for an edge kept, the ablated value for an
 * edge ablated ({@link EdgeRuns#chain}, LayerNorms on the way recomputed). One edge ablated is exact edge
 * patching; every edge outside a circuit ablated is the circuit's run (ACDC's definition).
 *
 * <p>Layer by layer from the first receiver with an ablated edge (below it the run is the clean one): the heads'
 * queries, keys and values of inputs that differ from the stream of kept edges come from one batch run of the
 * layer on those inputs; a second run of the layer on the kept stream puts them into their heads and keeps the
 * heads' outputs and the MLP's (an MLP with an ablated edge: a third run with its input put at {@code
 * hook_resid_mid}); the logits read their own input at the end.
 */
final class EdgeForward {
  private final EdgeRuns runs;
  /** Per receiver input: its first edge in the graph's list; senders follow in forward order. */
  private final List<Group> groups = new ArrayList<>();
  private final Map<CircuitNode, Integer> senderIndex = new LinkedHashMap<>();

  record Group(CircuitNode receiver, CircuitEdge.Input input, int start, int count) {}

  EdgeForward(EdgeRuns runs) {
    this.runs = runs;
    List<CircuitNode> senders = runs.graph.senders();
    for (int i = 0; i < senders.size(); i++) {
      senderIndex.put(senders.get(i), i);
    }
    List<CircuitEdge> edges = runs.graph.edges();
    int i = 0;
    while (i < edges.size()) {
      CircuitEdge e = edges.get(i);
      int j = i;
      while (j < edges.size() && edges.get(j).receiver().equals(e.receiver()) && edges.get(j).input() == e.input()) {
        j++;
      }
      groups.add(new Group(e.receiver(), e.input(), i, j - i));
      i = j;
    }
  }

  List<Group> groups() {
    return groups;
  }

  int senderIndex(CircuitNode s) {
    return senderIndex.get(s);
  }

  /** The metric with the edges marked in {@code ablated} (indexed as the graph's edges) carrying the ablated value. */
  double metric(boolean[] ablated) {
    int layers = runs.layers;
    int heads = runs.heads;
    // each receiver input's ablated senders
    Map<String, BitSet> keys = new LinkedHashMap<>();
    int first = layers;
    for (Group g : groups) {
      BitSet k = new BitSet();
      for (int i = 0; i < g.count(); i++) {
        if (ablated[g.start() + i]) {
          k.set(i);
        }
      }
      keys.put(name(g.receiver(), g.input()), k);
      if (!k.isEmpty()) {
        first = Math.min(first, g.receiver().kind() == CircuitNode.Kind.LOGITS ? layers : g.receiver().layer());
      }
    }
    EdgeRuns.Outputs clean = runs.clean;
    double[][][] curHeads = new double[layers][][];
    double[][] curMlp = new double[layers][];
    for (int l = 0; l < first; l++) {
      curHeads[l] = clean.heads()[l];
      curMlp[l] = clean.mlp()[l];
    }
    java.util.function.Function<CircuitNode, double[]> current = s -> switch (s.kind()) {
      case EMBEDDINGS -> clean.embed();
      case HEAD -> curHeads[s.layer()][s.head()];
      case MLP -> curMlp[s.layer()];
      case LOGITS, GROUP -> throw new IllegalArgumentException();
    };
    for (int l = first; l < layers; l++) {
      double[] base = runs.chain(current, l, false);
      // the heads' inputs that differ from the kept stream, each once
      Map<BitSet, Integer> rowOf = new LinkedHashMap<>();
      List<double[]> rows = new ArrayList<>();
      int[][] headRow = new int[3][heads]; // [q|k|v][head]: row of run A, or -1 for the kept stream
      CircuitEdge.Input[] qkv = {CircuitEdge.Input.Q, CircuitEdge.Input.K, CircuitEdge.Input.V};
      for (int h = 0; h < heads; h++) {
        for (int m = 0; m < 3; m++) {
          // grouped queries: a group's k or v input is every one of its query heads' (the engine repeats the
          // group's keys and values per query head at attn.hook_k|v, so each of them gets the group's row)
          CircuitNode r = m == 0 || !runs.graph.grouped() ? CircuitNode.head(l, h)
              : CircuitNode.group(l, h / runs.groupSize());
          BitSet k = keys.get(name(r, qkv[m]));
          if (k.isEmpty()) {
            headRow[m][h] = -1;
            continue;
          }
          Integer row = rowOf.get(k);
          if (row == null) {
            row = rows.size();
            rowOf.put(k, row);
            rows.add(runs.chain(mixed(current, k), l, false));
          }
          headRow[m][h] = row;
        }
      }
      RunRequest b = RunRequest.of(runs.in.clean()).startingAt(l, runs.activation(base, 1))
          .capture(new Capture(Set.of(HookPoint.Kind.ATTN_RESULT, HookPoint.Kind.MLP_OUT), Set.of(), Set.of(l),
              Capture.Stage.AFTER_INTERVENTIONS))
          .stoppingBefore(l + 1);
      if (!rows.isEmpty()) {
        double[] stacked = new double[rows.size() * base.length];
        for (int r = 0; r < rows.size(); r++) {
          System.arraycopy(rows.get(r), 0, stacked, r * base.length, base.length);
        }
        RunResult a = runs.model.run(RunRequest.of(EdgeRuns.copies(runs.in.clean(), rows.size()))
            .startingAt(l, runs.activation(stacked, rows.size()))
            .capture(new Capture(Set.of(HookPoint.Kind.ATTN_Q, HookPoint.Kind.ATTN_K, HookPoint.Kind.ATTN_V), Set.of(),
                Set.of(l), Capture.Stage.AFTER_INTERVENTIONS))
            .stoppingBefore(l + 1));
        for (int m = 0; m < 3; m++) {
          HookPoint p = EdgeRuns.point(qkv[m], l);
          Activation from = a.cache().get(p); // (R, H, T, dh)
          int[] which = headRow[m];
          b = b.intervene(new Intervention.Edit(p, v -> withBlocks(v, from, which)));
        }
      }
      RunResult rb = runs.model.run(b);
      curHeads[l] = split(rb.cache().get(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l)));
      BitSet mk = keys.get(name(CircuitNode.mlp(l), CircuitEdge.Input.MLP));
      if (mk.isEmpty()) {
        curMlp[l] = toDouble(rb.cache().get(HookPoint.of(HookPoint.Kind.MLP_OUT, l)).data());
      } else {
        double[] mid = runs.chain(mixed(current, mk), l, true);
        RunRequest c = runs.parallel
            // the MLP reads the layer's input: the layer run on the MLP's stream gives its output
            ? RunRequest.of(runs.in.clean()).startingAt(l, runs.activation(mid, 1))
            : RunRequest.of(runs.in.clean()).startingAt(l, runs.activation(base, 1))
                .intervene(new Intervention.Patch(HookPoint.of(HookPoint.Kind.RESID_MID, l), runs.activation(mid, 1)));
        RunResult rc = runs.model.run(c
            .capture(new Capture(Set.of(HookPoint.Kind.MLP_OUT), Set.of(), Set.of(l), Capture.Stage.AFTER_INTERVENTIONS))
            .stoppingBefore(l + 1));
        curMlp[l] = toDouble(rc.cache().get(HookPoint.of(HookPoint.Kind.MLP_OUT, l)).data());
      }
    }
    BitSet lk = keys.get(name(CircuitNode.LOGITS, CircuitEdge.Input.LOGITS));
    return runs.metricOf(runs.chain(mixed(current, lk), layers, false));
  }

  /** Each sender's output as the receiver with these ablated senders sees it. */
  private java.util.function.Function<CircuitNode, double[]> mixed(
      java.util.function.Function<CircuitNode, double[]> current, BitSet ablated) {
    if (ablated.isEmpty()) {
      return current;
    }
    return s -> ablated.get(senderIndex.get(s)) ? runs.ablated.of(s) : current.apply(s);
  }

  private static String name(CircuitNode r, CircuitEdge.Input in) {
    return r.label() + ":" + in.label();
  }

  /** {@code v} (1, H, T, dh) with head h's block from row {@code which[h]} of {@code from} where that is not -1. */
  private static Activation withBlocks(Activation v, Activation from, int[] which) {
    float[] data = v.data().clone();
    int[] s = v.shape();
    int block = s[2] * s[3];
    for (int h = 0; h < which.length; h++) {
      if (which[h] >= 0) {
        System.arraycopy(from.data(), (which[h] * s[1] + h) * block, data, h * block, block);
      }
    }
    return new Activation(data, s);
  }

  /** (1, T, H, d) into per-head (T d). */
  private static double[][] split(Activation a) {
    int t = a.dim(1);
    int h = a.dim(2);
    int d = a.dim(3);
    double[][] out = new double[h][t * d];
    for (int i = 0; i < t; i++) {
      for (int k = 0; k < h; k++) {
        int at = (i * h + k) * d;
        for (int e = 0; e < d; e++) {
          out[k][i * d + e] = a.data()[at + e];
        }
      }
    }
    return out;
  }

  static double[] toDouble(float[] f) {
    double[] out = new double[f.length];
    for (int i = 0; i < f.length; i++) {
      out[i] = f[i];
    }
    return out;
  }
}
