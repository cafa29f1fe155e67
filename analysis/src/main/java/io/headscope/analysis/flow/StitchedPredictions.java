package io.headscope.analysis.flow;

import io.headscope.model.BertModel;
import io.headscope.analysis.ablation.MlmProbe;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;

/**
 * One cell of {@link LayerCompatibility} read closely: on one input, the top-k predictions at each
 * probed position ({@link MlmProbe}: the {@code [MASK]}s, or the seeded 15% sample) of the stitched
 * model that feeds {@code h_from} into layer {@code to}, beside the intact model's.
 *
 * @param positions the probed token positions
 * @param tokens the input's wordpieces as run (sampled positions shown as {@code [MASK]})
 * @param targets what {@link LayerCompatibility} scores at each position: the intact top token, or the original
 * @param intact {@code [position][rank]}, best first
 * @param stitched the same for the stitched model
 */
public record StitchedPredictions(int from, int to, int[] positions, List<String> tokens, String[] targets,
    List<List<Guess>> intact, List<List<Guess>> stitched) {

  /** One candidate token with its probability (not log). */
  public record Guess(String token, double probability) {}

  /**
   * @param from the hidden state fed in, 0..L (0: the embeddings after their LayerNorm)
   * @param to the first layer that runs on it, 1..L ({@code to == from + 1}: the intact model)
   */
  public static StitchedPredictions of(BertModel model, Encoding input, long seed, int from, int to, int k) {
    int layers = model.config().numHiddenLayers();
    if (from < 0 || from > layers || to < 1 || to > layers) {
      throw new IllegalArgumentException("no cell (" + from + ", " + to + ") in a " + layers + "-layer model");
    }
    MlmProbe probe = MlmProbe.of(model, input, seed);
    RunResult base = model.run(RunRequest.of(probe.input())
        .capture(Capture.points(HookPoint.Kind.RESID_PRE, HookPoint.Kind.FINAL))
        .read(Readouts.none().withLogProbs(probe.positions())));
    Activation h = from == layers ? base.cache().get(HookPoint.fin()) : base.cache().get(HookPoint.residPre(from));
    float[][] intactLogp = base.logProbs()[0];
    // the stitched run computes the last layer's rows as the intact run does (a capture keeps the whole
    // layer, ReadRows), so on the diagonal it is the intact model to the bit on every CPU, not only where
    // the products are batch-invariant (docs/PERFORMANCE.md)
    float[][] stitchedLogp = model.run(RunRequest.of(probe.input()).startingAt(to - 1, h)
        .capture(Capture.points(HookPoint.Kind.FINAL))
        .read(Readouts.none().withLogProbs(probe.positions()))).logProbs()[0];
    String[] targets = new String[probe.positions().length];
    long[] top = io.headscope.analysis.ablation.AblationSweep.topTokens(intactLogp);
    for (int p = 0; p < targets.length; p++) {
      targets[p] = model.tokenizer().vocabToken(probe.kind() == MlmProbe.Kind.MASKS ? top[p] : probe.originals()[p]);
    }
    return new StitchedPredictions(from, to, probe.positions(), List.copyOf(probe.input().tokens()), targets,
        top(model, intactLogp, k), top(model, stitchedLogp, k));
  }

  private static List<List<Guess>> top(BertModel model, float[][] logp, int k) {
    List<List<Guess>> out = new ArrayList<>();
    for (float[] row : logp) {
      List<Guess> best = new ArrayList<>();
      boolean[] taken = new boolean[row.length];
      for (int r = 0; r < Math.min(k, row.length); r++) {
        int arg = -1;
        for (int v = 0; v < row.length; v++) {
          if (!taken[v] && (arg < 0 || row[v] > row[arg])) {
            arg = v;
          }
        }
        taken[arg] = true;
        best.add(new Guess(model.tokenizer().vocabToken(arg), Math.exp(row[arg])));
      }
      out.add(List.copyOf(best));
    }
    return List.copyOf(out);
  }
}
