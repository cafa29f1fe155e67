package io.headscope.analysis.circuits;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.CompositionNorms;
import io.headscope.model.engine.CompositionNorms.Mode;
import io.headscope.model.engine.HeadWeights;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Elhage et al.'s (2021) composition scores from the weights, as TransformerLens's
 * {@code HookedTransformer.all_composition_scores}: for a sender head 1 in a layer before receiver head 2,
 * {@code ||A B||_F / (||A||_F ||B||_F)} with {@code A = W_V W_O} of head 1 and {@code B = W_Q W_K^T} (Q),
 * {@code W_K W_Q^T} (K) or {@code W_V W_O} (V) of head 2; row-vector convention, the raw weights (no
 * LayerNorm folded in), biases left out. Pairs whose sender is not in an earlier layer score 0, as there.
 *
 * <p>Beside them, the score random matrices of the same shapes give ({@link Baseline}): for iid Gaussian
 * factors {@code E||AB||^2 / (E||A||^2 E||B||^2) = 1/d}, so about {@code 1/sqrt(d)} (0.036 for d = 768) is what
 * no structure at all reaches.
 */
public final class CompositionScores {
  /** Random weight draws for the baseline (two layers each: H^2 sender-receiver pairs per draw). */
  public static final int BASELINE_DRAWS = 4;
  public static final long BASELINE_SEED = 0;

  private CompositionScores() {}

  /** {@code q}, {@code k} or {@code v} (any case): one line naming them otherwise. */
  public static Mode parseMode(String s) {
    return switch (s == null ? "" : s.trim().toLowerCase(Locale.ROOT)) {
      case "q" -> Mode.Q;
      case "k" -> Mode.K;
      case "v" -> Mode.V;
      default -> throw new HeadScopeException("--mode \"" + s + "\" is unknown: use q, k or v.");
    };
  }

  /** The scores of every pair of the model's heads, for each mode asked (one pass over the weights). */
  public static Map<Mode, CompositionResult> of(BertModel model, EnumSet<Mode> modes) {
    // a grouped model's query heads read their key/value group's W_K and W_V (HeadWeights), as repeat_kv runs them
    return results(model.compositionNorms(modes), modes);
  }

  public static CompositionResult of(BertModel model, Mode mode) {
    return of(model, EnumSet.of(mode)).get(mode);
  }

  private static Map<Mode, CompositionResult> results(CompositionNorms n, EnumSet<Mode> modes) {
    Map<Mode, CompositionResult> out = new EnumMap<>(Mode.class);
    for (Mode m : modes) {
      out.put(m, new CompositionResult(m, n.layers(), n.heads(), scores(n, m), null));
    }
    return out;
  }

  /** {@code sqrt(||AB||^2 / (||A||^2 ||B||^2))} from the norms; 0 where the sender is not earlier or a norm is 0. */
  static double[][][][] scores(CompositionNorms n, Mode m) {
    int layers = n.layers();
    int h = n.heads();
    double[][][][] pairs = n.pairs().get(m);
    double[][][][] s = new double[layers][h][layers][h];
    for (int l1 = 0; l1 < layers; l1++) {
      for (int i = 0; i < h; i++) {
        for (int l2 = l1 + 1; l2 < layers; l2++) {
          for (int j = 0; j < h; j++) {
            double right = m == Mode.V ? n.ov()[l2][j] : n.qk()[l2][j];
            double denom = n.ov()[l1][i] * right;
            s[l1][i][l2][j] = denom > 0 ? Math.sqrt(pairs[l1][i][l2][j] / denom) : 0;
          }
        }
      }
    }
    return s;
  }

  /**
   * The scores of random weights of the model's shapes: {@code draws} draws of two layers of H heads
   * (d x dh and dh x d matrices, iid standard normal entries; the score does not depend on their scale),
   * every sender of the first layer with every receiver of the second.
   */
  public static Baseline baseline(BertModel model, Mode mode, int draws, long seed) {
    int h = model.config().numAttentionHeads();
    int d = model.config().hiddenSize();
    int r = d / h;
    SplittableRandom random = new SplittableRandom(seed);
    List<Double> all = new ArrayList<>();
    for (int t = 0; t < draws; t++) {
      float[][][] m = new float[4][2][];
      for (int a = 0; a < 4; a++) {
        for (int l = 0; l < 2; l++) {
          float[] x = new float[h * d * r];
          for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
          }
          m[a][l] = x;
        }
      }
      HeadWeights w = new HeadWeights(2, h, d, r, m[0], m[1], m[2], m[3]);
      double[][][][] s = scores(model.compositionNorms(w, EnumSet.of(mode)), mode);
      for (int i = 0; i < h; i++) {
        for (int j = 0; j < h; j++) {
          all.add(s[0][i][1][j]);
        }
      }
    }
    double mean = all.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    double var = all.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / Math.max(1, all.size() - 1);
    return new Baseline(mode, mean, Math.sqrt(var), all.size(), draws, seed, 1 / Math.sqrt(d));
  }

  /**
   * What random matrices of the model's shapes score.
   *
   * @param mean the mean score over {@code pairs} random sender-receiver pairs
   * @param sd their standard deviation
   * @param approximate {@code 1/sqrt(d)}, the ratio of the expectations
   */
  public record Baseline(Mode mode, double mean, double sd, int pairs, int draws, long seed, double approximate) {}
}
