package io.headscope.bench;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.circuits.Ablation;
import io.headscope.analysis.circuits.EdgeAnalysis;
import io.headscope.analysis.circuits.EdgeScores;
import io.headscope.model.BertModel;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.PointGradients;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@link CircuitsBenchmark}'s section for issue 43's edges: EAP over every edge (goal 1 s) and EAP-IG at 20
 * steps (goal 10 s) on bert-base at 16 tokens, beside a plain forward pass and exact edge patching of one edge
 * and of one circuit, each a median of the rounds with the load average printed.
 */
final class CircuitEdgesSection {
  private CircuitEdgesSection() {}

  static void run(BertModel model, PatchInputs in, int reps) {
    TargetMetric m = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, model.tokenizer().singleTokenId("she"),
        model.tokenizer().singleTokenId("he"));
    EdgeAnalysis a = EdgeAnalysis.of(model, in, m, Ablation.CORRUPTED, null);
    EdgeScores eap = a.eap(); // warm-up, and the edges patched below
    System.out.printf(Locale.ROOT, "edges: %d in the graph%n", eap.edges().size());
    Runnable forward = () -> model.run(RunRequest.of(in.clean()).read(Readouts.none().withLogProbs(in.positions())));
    Runnable all = a::eap;
    Runnable ig = () -> a.eapIg(20);
    Runnable exact = () -> a.exact(eap.topEdges(1));
    Runnable circuit = () -> a.circuitMetric(eap.topEdges(100));
    // EAP's one backward pass alone (the points it reads), so the rest is its Java part
    List<HookPoint> points = new ArrayList<>();
    for (int l = 0; l < model.config().numHiddenLayers(); l++) {
      for (HookPoint.Kind k : List.of(HookPoint.Kind.ATTN_Q, HookPoint.Kind.ATTN_K, HookPoint.Kind.ATTN_V,
          HookPoint.Kind.RESID_MID, HookPoint.Kind.MLP_OUT)) {
        points.add(HookPoint.of(k, l));
      }
    }
    points.add(HookPoint.residPost(model.config().numHiddenLayers() - 1));
    int[] at = in.positions();
    PointGradients pg = new PointGradients(in.clean(), points, new int[] {at[0], at[0]},
        new long[] {m.target(), m.contrast()}, new float[] {1f, -1f});
    Runnable backward = () -> model.gradients(pg);
    List<Runnable> work = List.of(forward, backward, all, ig, exact, circuit);
    String[] names = {"plain forward pass (clean input)", "EAP's backward pass alone (61 points)",
        "EAP, every edge (goal 1 s)", "EAP-IG, 20 steps, every edge (goal 10 s)",
        "exact edge patching, one edge (EAP's largest)", "circuit run, top 100 edges by EAP"};
    List<List<Double>> t = new ArrayList<>();
    work.forEach(w -> t.add(new ArrayList<>()));
    for (int i = 0; i < reps; i++) {
      StringBuilder line = new StringBuilder("edges round " + (i + 1) + ":");
      for (int w = 0; w < work.size(); w++) {
        Runnable r = work.get(w);
        double ms = Benchmark.millis(() -> {
          r.run();
          return null;
        });
        t.get(w).add(ms);
        line.append(String.format(Locale.ROOT, " %.0f ms", ms));
      }
      System.out.println(line + ", load average " + AblationBenchmark.loadAverage());
    }
    double f = Benchmark.median(t.get(0));
    for (int w = 0; w < names.length; w++) {
      double med = Benchmark.median(t.get(w));
      System.out.printf(Locale.ROOT, "%-60s %8.0f ms   (%.1f forward passes)%n", names[w], med, med / f);
      if (w > 0) {
        BenchJson.add(names[w], med, names[0], f);
      }
    }
  }
}
