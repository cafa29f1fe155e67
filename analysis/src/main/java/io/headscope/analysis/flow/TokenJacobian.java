package io.headscope.analysis.flow;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.HeadMask;
import io.headscope.model.engine.JacobianResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleConsumer;

/**
 * Token-to-token Jacobian norms of every layer, {@code J^l[j][i] = ||d h^l_j / d h^(l-1)_i||_F}, beside
 * the layer's attention (METHODS.md, "Token-to-token Jacobian norms"). Exact, or the square root of the
 * unbiased random-projection estimate of {@code J^2} with k samples.
 *
 * @param input the input
 * @param mask heads switched off while the layers ran (their maps and Jacobians are as run)
 * @param norms {@code [layer][j][i]}, 0-based layer = layer 1
 * @param method how the norms were computed
 * @param samples k for the estimate, 0 when exact
 * @param seed the projection vectors' seed
 * @param correlations one per layer, in order
 */
public record TokenJacobian(Encoding input, HeadMask mask, double[][][] norms, Method method, int samples, long seed,
    List<MapCorrelation> correlations) {

  /**
   * Exact up to this many tokens by default. The exact pass costs T d backward passes of a T-token layer
   * per layer, so it grows as T^2 d; on bert-base at 16 tokens it takes minutes on 2 cores (README).
   */
  public static final int DEFAULT_EXACT_MAX_TOKENS = 16;

  /** k by default: the estimate's relative standard deviation is at most sqrt(2 / k) = 0.25 on J^2. */
  public static final int DEFAULT_SAMPLES = 32;

  public enum Method {
    EXACT("exact"),
    RANDOM_PROJECTION("random-projection");

    private final String label;

    Method(String label) {
      this.label = label;
    }

    /** As written in the JSON. */
    public String label() {
      return label;
    }
  }

  public TokenJacobian {
    correlations = List.copyOf(correlations);
  }

  /** The default: exact up to {@link #DEFAULT_EXACT_MAX_TOKENS} tokens, else {@link #DEFAULT_SAMPLES} samples. */
  public static int defaultSamples(Encoding input) {
    return input.length() <= DEFAULT_EXACT_MAX_TOKENS ? 0 : DEFAULT_SAMPLES;
  }

  /**
   * Computes the norms ({@code samples} 0: exact) and their correlations with the maps of the same
   * pass (mean over heads, and Kobayashi's layer-level norm map, both as the model ran them).
   *
   * @param progress the share done, 0..1
   */
  public static TokenJacobian of(BertModel model, Encoding input, HeadMask mask, int samples, long seed,
      DoubleConsumer progress, BooleanSupplier cancelled) {
    JacobianResult r = model.jacobian(input, mask, samples, seed, progress, cancelled);
    AttentionTrace t = model.trace(List.of(input), mask, 1, AttentionTrace.Maps.AS_RUN, true).get(0);
    double[][][] norms = r.norms();
    List<MapCorrelation> c = new ArrayList<>();
    for (int l = 0; l < norms.length; l++) {
      c.add(MapCorrelation.of(l + 1, norms[l], meanOverHeads(t.attention()[l]), widen(t.layerNorms()[l])));
    }
    return new TokenJacobian(input, mask, norms, samples == 0 ? Method.EXACT : Method.RANDOM_PROJECTION, samples,
        seed, c);
  }

  /** {@code mean_h A^h[j][i]} from {@code [head][query][key]}. */
  static double[][] meanOverHeads(float[][][] heads) {
    int n = heads[0].length;
    double[][] m = new double[n][n];
    for (float[][] map : heads) {
      for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++) {
          m[j][i] += map[j][i] / (double) heads.length;
        }
      }
    }
    return m;
  }

  private static double[][] widen(float[][] m) {
    double[][] out = new double[m.length][];
    for (int j = 0; j < m.length; j++) {
      out[j] = new double[m[j].length];
      for (int i = 0; i < m[j].length; i++) {
        out[j][i] = m[j][i];
      }
    }
    return out;
  }
}
