package io.headscope.app.cli;

import io.headscope.analysis.circuits.CompositionCsv;
import io.headscope.analysis.circuits.CompositionResult;
import io.headscope.analysis.circuits.CompositionScores;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.CompositionNorms.Mode;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "composition", mixinStandardHelpOptions = true,
    description = {"Composition scores from the weights (Elhage et al. 2021, as TransformerLens's "
        + "all_composition_scores): for every sender head in a layer before a receiver head, "
        + "||A B||_F / (||A||_F ||B||_F) with A = W_V W_O of the sender and B = W_Q W_K^T (--mode q), its transpose "
        + "(k) or W_V W_O (v) of the receiver; row-vector convention, raw weights, no biases.",
        "CSV: sender_layer,sender_head,receiver_layer,receiver_head,score (1-based). Standard error: the score "
            + "random matrices of the same shapes give (mean and spread over random draws, seed 0)."})
final class CompositionCommand implements Callable<Integer> {
  @Option(names = "--mode", required = true, paramLabel = "q|k|v", description = "Which of the receiver's inputs "
      + "the sender's output is read by: q (queries), k (keys) or v (values).")
  String mode;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    Mode m;
    try {
      m = CompositionScores.parseMode(mode);
    } catch (HeadScopeException e) {
      throw new UsageException(e.getMessage(), e);
    }
    output.check();
    try (BertModel bert = model.open()) {
      if (bert.config().numHiddenLayers() < 2) {
        throw new UsageException("Composition needs two layers at least: " + bert.name() + " has one.");
      }
      long start = System.nanoTime();
      CompositionResult r = CompositionScores.of(bert, m);
      double seconds = (System.nanoTime() - start) / 1e9;
      output.write(o -> CompositionCsv.write(r, o));
      if (output.out != null) {
        System.err.println("headscope: wrote " + output.out);
      }
      CompositionScores.Baseline b = CompositionScores.baseline(bert, m, CompositionScores.BASELINE_DRAWS,
          CompositionScores.BASELINE_SEED);
      int[] top = top(r);
      System.err.printf(Locale.ROOT, "headscope: %s-composition of %d pairs took %.2f s; largest %d-%d -> %d-%d: %.4f%n",
          m, pairs(r), seconds, top[0] + 1, top[1] + 1, top[2] + 1, top[3] + 1, r.score(top[0], top[1], top[2], top[3]));
      System.err.printf(Locale.ROOT, "headscope: random matrices of these shapes score %.4f +- %.4f (%d pairs of %d "
          + "draws, seed %d; 1/sqrt(d) = %.4f)%n", b.mean(), b.sd(), b.pairs(), b.draws(), b.seed(), b.approximate());
    }
    return 0;
  }

  private static int pairs(CompositionResult r) {
    return r.layers() * (r.layers() - 1) / 2 * r.heads() * r.heads();
  }

  private static int[] top(CompositionResult r) {
    int[] best = {0, 0, 1, 0};
    for (int l1 = 0; l1 < r.layers(); l1++) {
      for (int i = 0; i < r.heads(); i++) {
        for (int l2 = l1 + 1; l2 < r.layers(); l2++) {
          for (int j = 0; j < r.heads(); j++) {
            if (r.score(l1, i, l2, j) > r.score(best[0], best[1], best[2], best[3])) {
              best = new int[] {l1, i, l2, j};
            }
          }
        }
      }
    }
    return best;
  }
}
