package io.headscope.bench;

import io.headscope.analysis.flow.AttentionFlow;
import io.headscope.analysis.flow.LayerCompatibility;
import io.headscope.analysis.flow.Rollout;
import io.headscope.analysis.flow.TokenJacobian;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.HeadMask;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * The information-flow analyses of issue 16 on bert-base-uncased, each beside a peer measured in the same
 * run: rollout of a 128-token input beside the forward pass that gives its maps (the goal is rollout
 * under 50 ms beyond it); attention flow of a 20-token input, every input-output pair of the last layer
 * (goal under 2 s); exact token Jacobians of a 16-token input, all 12 layers (goal under 30 s), and the
 * random-projection estimate with k = 16 (goal under 5 s), both beside one forward pass; the layer
 * compatibility matrix over corpus sentences (goal: 100 sentences under 3 min) beside the same number of
 * plain forward passes. Prints wall and process-CPU medians; asserts nothing.
 *
 * <p>Arguments: {@code [repetitions (3)] [layer-matrix sentences (100; 0 skips it)]} and {@code --json FILE}.
 */
public final class FlowBenchmark {
  public static void main(String[] args) throws IOException {
    args = BenchJson.init(args);
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int sentences = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    System.out.printf(Locale.ROOT, "HeadScope information-flow benchmark, %d cores, load average %s, %d repetitions "
        + "(median)%n", Runtime.getRuntime().availableProcessors(), AblationBenchmark.loadAverage(), reps);
    ModelFiles files = ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
    try (BertModel model = BertModel.load(files)) {
      Machine.print(model);
      List<String> corpus = AblationBenchmark.corpus(null);
      Encoding e128 = FavorBenchmark.prefix(model, corpus, 128);
      Encoding e20 = FavorBenchmark.prefix(model, corpus, 20);
      Encoding e16 = FavorBenchmark.prefix(model, corpus, 16);
      System.out.printf(Locale.ROOT, "inputs: %d, %d and %d tokens%n", e128.length(), e20.length(), e16.length());

      FavorBenchmark.Time forward128 = FavorBenchmark.median(reps, () -> trace(model, e128));
      AttentionTrace t128 = trace(model, e128);
      FavorBenchmark.Time rollout = FavorBenchmark.median(reps, () -> Rollout.of(t128.attention()));
      row("forward pass with all maps, 128 tokens (peer)", forward128, null, null);
      row("rollout of all 12 layers, 128 tokens, beyond the forward (goal < 50 ms)", rollout,
          "forward pass with all maps, 128 tokens", forward128);

      FavorBenchmark.Time forward20 = FavorBenchmark.median(reps, () -> trace(model, e20));
      AttentionTrace t20 = trace(model, e20);
      FavorBenchmark.Time flow = FavorBenchmark.median(reps, () -> AttentionFlow.of(t20.attention()));
      row("forward pass with all maps, 20 tokens (peer)", forward20, null, null);
      row("attention flow, 20 tokens, all input-output pairs of the last layer (goal < 2 s)", flow,
          "forward pass with all maps, 20 tokens", forward20);

      FavorBenchmark.Time forward16 = FavorBenchmark.median(reps, () -> trace(model, e16));
      row("forward pass with all maps, 16 tokens (peer)", forward16, null, null);
      FavorBenchmark.Time estimate = FavorBenchmark.median(reps,
          () -> TokenJacobian.of(model, e16, HeadMask.NONE, 16, 0, p -> { }, () -> false));
      row("token Jacobians, 16 tokens, 12 layers, estimate k = 16 (goal < 5 s)", estimate,
          "forward pass with all maps, 16 tokens", forward16);
      FavorBenchmark.Time exact = FavorBenchmark.median(Math.min(reps, 1),
          () -> TokenJacobian.of(model, e16, HeadMask.NONE, 0, 0, p -> { }, () -> false));
      row("token Jacobians, 16 tokens, 12 layers, exact (goal < 30 s)", exact,
          "forward pass with all maps, 16 tokens", forward16);

      if (sentences > 0) {
        List<Encoding> inputs = corpus.stream().limit(sentences).map(s -> model.encode(s, null)).toList();
        FavorBenchmark.Time plain = FavorBenchmark.median(1, () -> {
          for (Encoding e : inputs) {
            model.trace(TraceRequest.of(e).top(1));
          }
          return null;
        });
        String peer = inputs.size() + " plain forward passes, one at a time";
        row(peer + " (peer)", plain, null, null);
        FavorBenchmark.Time matrix = FavorBenchmark.median(1,
            () -> LayerCompatibility.run(model, inputs, 0, ProgressListener.NONE, () -> false));
        row("layer compatibility matrix, " + inputs.size() + " sentences (goal: 100 under 180 s)", matrix, peer, plain);
      }
    }
    System.out.printf(Locale.ROOT, "load average at the end: %s%n", AblationBenchmark.loadAverage());
    BenchJson.write();
  }

  private static AttentionTrace trace(BertModel model, Encoding e) {
    return model.trace(TraceRequest.of(e).top(1).maps(AttentionTrace.Maps.AS_RUN)).get(0);
  }

  /** One line (wall, CPU, and the ratio to the peer's wall time) and one JSON figure. */
  private static void row(String what, FavorBenchmark.Time t, String peer, FavorBenchmark.Time peerTime) {
    System.out.printf(Locale.ROOT, "%-88s %9.1f ms wall %9.1f ms CPU%s%n", what, t.wall(), t.cpu(),
        peerTime == null ? "" : String.format(Locale.ROOT, "   %.2fx the peer", t.wall() / peerTime.wall()));
    if (peer == null) {
      BenchJson.add(what, t.wall());
    } else {
      BenchJson.add(what, t.wall(), peer, peerTime.wall());
    }
  }
}
