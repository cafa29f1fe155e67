package io.headscope.bench;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchMetric;
import io.headscope.analysis.causal.PathPatching;
import io.headscope.analysis.causal.PathReceiver;
import io.headscope.analysis.circuits.CompositionScores;
import io.headscope.model.BertModel;
import io.headscope.model.engine.CompositionNorms.Mode;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.store.ProgressListener;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

/**
 * Issue 43's speed goals on bert-base-uncased at 16 tokens (docs/CAUSAL.md's pair A): composition scores of
 * all three modes (goal 2 s), path patching of all 144 senders into the logits (goal 3 s) and into one head's
 * values (no goal), beside one plain forward pass measured in the same rounds, so a loaded shared machine
 * slows all alike. Prints medians and the load average per round; asserts nothing.
 *
 * <p>Arguments: {@code [repetitions]} (default 3). {@code ./headscope bench circuits [reps] [--json FILE]}.
 */
public final class CircuitsBenchmark {
  static final String CLEAN = "My sister lost her keys . The doctor said [MASK] would be late .";
  static final String CORRUPTED = "My brother lost his keys . The doctor said [MASK] would be late .";

  public static void main(String[] args) throws Exception {
    args = BenchJson.init(args);
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    System.out.printf(Locale.ROOT, "HeadScope circuits benchmark, %d cores, load average %s, %d repetitions (median)%n",
        Runtime.getRuntime().availableProcessors(), AblationBenchmark.loadAverage(), reps);
    ModelFiles files = ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
    try (BertModel model = BertModel.load(files)) {
      Machine.print(model);
      PatchInputs in = PatchInputs.of(model, CLEAN, CORRUPTED);
      System.out.printf(Locale.ROOT, "pair: %d tokens%n", in.length());
      PatchMetric m = PatchMetric.of(new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, model.tokenizer().singleTokenId("she"),
          model.tokenizer().singleTokenId("he")));
      PathPatching path = new PathPatching(model);
      List<PathReceiver> value = PathReceiver.parse("12-4:v", model.config());
      Runnable forward = () -> model.run(RunRequest.of(in.clean()).read(Readouts.none().withLogProbs(in.positions())));
      Runnable composition = () -> CompositionScores.of(model, EnumSet.allOf(Mode.class));
      Runnable logits = () -> path.run(in, m, List.of(PathReceiver.LOGITS), PatchDirection.NOISE);
      Runnable intoValue = () -> path.run(in, m, value, PatchDirection.NOISE);
      forward.run(); // warm-up
      logits.run();
      List<List<Double>> t = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
      List<Runnable> work = List.of(forward, composition, logits, intoValue);
      for (int i = 0; i < reps; i++) {
        for (int w = 0; w < work.size(); w++) {
          Runnable r = work.get(w);
          t.get(w).add(Benchmark.millis(() -> {
            r.run();
            return null;
          }));
        }
        System.out.printf(Locale.ROOT, "round %d: forward %.0f ms, composition q+k+v %.0f ms, path into logits %.0f ms, "
            + "path into 12-4:v %.0f ms, load average %s%n", i + 1, t.get(0).get(i), t.get(1).get(i), t.get(2).get(i),
            t.get(3).get(i), AblationBenchmark.loadAverage());
      }
      double f = Benchmark.median(t.get(0));
      String[] names = {"plain forward pass (clean input)", "composition scores, q + k + v, every pair (goal 2 s)",
          "path patching, 144 senders into the logits (goal 3 s)", "path patching, 132 senders into 12-4:v"};
      for (int w = 0; w < names.length; w++) {
        double med = Benchmark.median(t.get(w));
        System.out.printf(Locale.ROOT, "%-60s %8.0f ms   (%.1f forward passes)%n", names[w], med, med / f);
        if (w > 0) {
          BenchJson.add(names[w], med, names[0], f);
        }
      }
      // where path patching's time goes: the time to each progress report (the first report follows the pair of
      // plain runs and layer 1's senders)
      long[] last = {System.nanoTime()};
      long t0 = last[0];
      StringBuilder profile = new StringBuilder("profile of one path patching run into the logits (ms after the last report):");
      path.run(in, m, List.of(PathReceiver.LOGITS), PatchDirection.NOISE, (stage, fraction) -> {
        long now = System.nanoTime();
        profile.append(String.format(Locale.ROOT, "%n  %-48s %7.0f", stage, (now - last[0]) / 1e6));
        last[0] = now;
      }, () -> false);
      profile.append(String.format(Locale.ROOT, "%n  %-48s %7.0f", "total", (System.nanoTime() - t0) / 1e6));
      System.out.println(profile);
      CircuitEdgesSection.run(model, in, reps);
      System.out.printf(Locale.ROOT, "load average at the end %s%n", AblationBenchmark.loadAverage());
    }
  }
}
