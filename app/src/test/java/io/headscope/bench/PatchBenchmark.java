package io.headscope.bench;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.ActivationPatching;
import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchSite;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.store.ProgressListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Medians of activation patching on bert-base-uncased (issue 30): the residual stream ({@code patch --by resid},
 * 3 streams x 12 layers x every token) beside two peers measured in the same rounds, so that a loaded shared
 * machine slows all three alike: one plain forward pass of the clean input, and per-head patching (144 heads).
 * Prints figures; asserts nothing.
 *
 * <p>Arguments: {@code [repetitions]}; the pair has 32 tokens (the target: {@code --by resid} in 5 s).
 */
public final class PatchBenchmark {
  static final String CLEAN = "My sister lost her keys at the old station this morning , so the whole big family had to "
      + "wait there . The doctor said [MASK] would be late .";
  static final String CORRUPTED = "My brother lost his keys at the old station this morning , so the whole big family had "
      + "to wait there . The doctor said [MASK] would be late .";

  public static void main(String[] args) throws Exception {
    args = BenchJson.init(args);
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    System.out.printf(Locale.ROOT, "HeadScope patching benchmark, %d cores, load average %s, %d repetitions (median)%n",
        Runtime.getRuntime().availableProcessors(), AblationBenchmark.loadAverage(), reps);
    ModelFiles files = ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
    try (BertModel model = BertModel.load(files)) {
      Machine.print(model);
      PatchInputs in = PatchInputs.of(model, CLEAN, CORRUPTED);
      System.out.printf(Locale.ROOT, "pair: %d tokens%n", in.length());
      TargetMetric m = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, model.tokenizer().singleTokenId("she"),
          model.tokenizer().singleTokenId("he"));
      ActivationPatching patching = new ActivationPatching(model);
      Runnable forward = () -> model.run(RunRequest.of(in.clean()).read(Readouts.none().withLogProbs(in.positions())));
      Runnable heads = () -> patching.run(in, m, PatchSite.HEAD, PatchDirection.DENOISE);
      Runnable resid = () -> patching.residualStream(in, m, PatchDirection.DENOISE, ProgressListener.NONE, () -> false);
      // the way --by resid ran before resid_mid was taken from resid_post: resid_pre and resid_mid each run at every
      // layer (the top resid_post, one layer, left out; the first layer's unchanged tokens are skipped in both)
      Runnable before = () -> {
        patching.run(in, m, PatchSite.RESID_PRE, PatchDirection.DENOISE);
        patching.run(in, m, PatchSite.RESID_MID, PatchDirection.DENOISE);
      };
      forward.run(); // warm-up
      heads.run();
      List<Double> f = new ArrayList<>();
      List<Double> h = new ArrayList<>();
      List<Double> r = new ArrayList<>();
      List<Double> b = new ArrayList<>();
      // interleaved: each round sees the same load
      for (int i = 0; i < reps; i++) {
        f.add(Benchmark.millis(() -> {
          forward.run();
          return null;
        }));
        h.add(Benchmark.millis(() -> {
          heads.run();
          return null;
        }));
        r.add(Benchmark.millis(() -> {
          resid.run();
          return null;
        }));
        b.add(Benchmark.millis(() -> {
          before.run();
          return null;
        }));
        System.out.printf(Locale.ROOT, "round %d: forward %.0f ms, heads %.0f ms, resid %.0f ms, resid_pre + resid_mid "
            + "alone %.0f ms, load average %s%n", i + 1, f.get(i), h.get(i), r.get(i), b.get(i),
            AblationBenchmark.loadAverage());
      }
      double fm = Benchmark.median(f);
      double hm = Benchmark.median(h);
      double rm = Benchmark.median(r);
      System.out.printf(Locale.ROOT, "%-60s %8.0f ms%n", "plain forward pass (clean input)", fm);
      System.out.printf(Locale.ROOT, "%-60s %8.0f ms   (%.0f forward passes)%n", "per-head patching, 144 heads", hm,
          hm / fm);
      System.out.printf(Locale.ROOT, "%-60s %8.0f ms   (%.0f forward passes, %.2f x heads)%n",
          "residual stream, 3 x 12 layers x " + in.length() + " tokens", rm, rm / fm, rm / hm);
      System.out.printf(Locale.ROOT, "%-60s %8.0f ms   (%.2f x residual stream)%n",
          "resid_pre and resid_mid each run alone (as before)", Benchmark.median(b), Benchmark.median(b) / rm);
      // where the residual stream's time goes: the time to each layer's progress report, beside the share of
      // the work (layers run) that layer's batch has
      long[] last = {System.nanoTime()};
      long t0 = last[0];
      StringBuilder profile = new StringBuilder("profile of one residual-stream run (ms after the last report):");
      patching.residualStream(in, m, PatchDirection.DENOISE, (stage, fraction) -> {
        long now = System.nanoTime();
        profile.append(String.format(Locale.ROOT, "%n  %-32s %7.0f", stage, (now - last[0]) / 1e6));
        last[0] = now;
      }, () -> false);
      profile.append(String.format(Locale.ROOT, "%n  %-32s %7.0f", "total", (System.nanoTime() - t0) / 1e6));
      System.out.println(profile);
      System.out.printf(Locale.ROOT, "load average at the end %s%n", AblationBenchmark.loadAverage());
    }
  }
}
