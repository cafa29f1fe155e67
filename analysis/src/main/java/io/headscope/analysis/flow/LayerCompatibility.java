package io.headscope.analysis.flow;

import io.headscope.model.BertModel;
import io.headscope.analysis.ablation.MlmProbe;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Which layers can stand in for which: the hidden state {@code h_i} after layer i (i = 0: the
 * embeddings after their LayerNorm) is fed into layer j (j = 1..L), skipping or repeating layers, and
 * the stitched model's masked-LM quality is scored as {@code ablate} scores it ({@link MlmProbe}: the
 * intact model's top token at each {@code [MASK]}, or the original tokens at a seeded 15% sample).
 * Entry (i, i + 1) is the intact model.
 *
 * <p>Each input runs once intact, keeping every {@code h_i}; then for each j the L + 1 stitched models
 * that start at layer j run as one batch from there, so no lower layer is run twice.
 *
 * @param logprob {@code [i][j - 1]}: mean over inputs of the targets' mean log-probability
 * @param top1 {@code [i][j - 1]}: mean share of positions whose top token is the intact model's
 * @param intact the intact model's mean log-probability
 */
public record LayerCompatibility(double[][] logprob, double[][] top1, double intact, int inputs) {

  public static LayerCompatibility run(BertModel model, List<Encoding> inputs, long seed, ProgressListener progress,
      BooleanSupplier cancelled) {
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("no inputs");
    }
    return mean(each(model, inputs, seed, progress, cancelled));
  }

  /**
   * One input's scores, before the mean over inputs: what a shard of a corpus keeps.
   *
   * @param intact the intact model's mean log-probability on this input
   * @param logprob {@code [i][j - 1]}: the stitched model's mean log-probability of the targets
   * @param top1 {@code [i][j - 1]}: its share of positions whose top token is the intact model's
   */
  public record PerInput(double intact, double[][] logprob, double[][] top1) {}

  /** Every input's scores, in input order (an empty list for no input). */
  public static List<PerInput> each(BertModel model, List<Encoding> inputs, long seed, ProgressListener progress,
      BooleanSupplier cancelled) {
    int layers = model.config().numHiddenLayers();
    List<PerInput> out = new java.util.ArrayList<>();
    for (int k = 0; k < inputs.size(); k++) {
      MlmProbe probe = MlmProbe.of(model, inputs.get(k), seed);
      int m = probe.positions().length;
      RunResult base = model.run(RunRequest.of(probe.input())
          .capture(Capture.points(HookPoint.Kind.RESID_PRE, HookPoint.Kind.FINAL))
          .read(Readouts.none().withLogProbs(probe.positions())));
      float[][] logp = base.logProbs()[0];
      long[] top = io.headscope.analysis.ablation.AblationSweep.topTokens(logp);
      long[] targets = probe.kind() == MlmProbe.Kind.MASKS ? top : probe.originals();
      double mine = 0;
      for (int p = 0; p < m; p++) {
        mine += logp[p][(int) targets[p]] / m;
      }
      double[][] logprob = new double[layers + 1][layers];
      double[][] top1 = new double[layers + 1][layers];
      Activation[] h = new Activation[layers + 1];
      for (int i = 0; i < layers; i++) {
        h[i] = base.cache().get(HookPoint.residPre(i));
      }
      h[layers] = base.cache().get(HookPoint.fin());
      Activation stacked = stack(h);
      Readouts compare = Readouts.none().withComparison(new Readouts.Comparison(probe.positions(), targets, logp));
      for (int j = 1; j <= layers; j++) {
        if (cancelled.getAsBoolean()) {
          throw new CancellationException("layer compatibility cancelled");
        }
        RunResult.TargetScores[] r = model.run(RunRequest.of(Collections.nCopies(layers + 1, probe.input()))
            .startingAt(j - 1, stacked).read(compare)).comparison();
        for (int i = 0; i <= layers; i++) {
          double lp = 0;
          double agree = 0;
          for (int p = 0; p < m; p++) {
            lp += r[i].targetLogProbs()[p] / m;
            agree += (r[i].top()[p] == top[p] ? 1.0 : 0.0) / m;
          }
          logprob[i][j - 1] = lp;
          top1[i][j - 1] = agree;
        }
        progress.progress("Input " + (k + 1) + " of " + inputs.size(),
            (k * layers + j) / (double) (inputs.size() * layers));
      }
      out.add(new PerInput(mine, logprob, top1));
    }
    return out;
  }

  /** The mean over inputs, summed in the order given (the order fixes the last bits). */
  public static LayerCompatibility mean(List<PerInput> each) {
    if (each.isEmpty()) {
      throw new IllegalArgumentException("no inputs");
    }
    int n = each.size();
    int rows = each.get(0).logprob().length;
    int cols = each.get(0).logprob()[0].length;
    double[][] logprob = new double[rows][cols];
    double[][] top1 = new double[rows][cols];
    double intact = 0;
    for (PerInput x : each) {
      intact += x.intact() / n;
      for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
          logprob[i][j] += x.logprob()[i][j] / n;
          top1[i][j] += x.top1()[i][j] / n;
        }
      }
    }
    return new LayerCompatibility(logprob, top1, intact, n);
  }

  /** (1, T, d) tensors stacked into (N, T, d). */
  static Activation stack(Activation[] parts) {
    int per = parts[0].data().length;
    float[] out = new float[per * parts.length];
    for (int i = 0; i < parts.length; i++) {
      System.arraycopy(parts[i].data(), 0, out, i * per, per);
    }
    int[] shape = parts[0].shape();
    shape[0] = parts.length;
    return new Activation(out, shape);
  }
}
