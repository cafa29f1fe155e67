package io.headscope.analysis.flow;

import io.headscope.model.AttentionTrace;
import io.headscope.model.core.BertConfig;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.HeadMask;
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
   * The exact pass costs T d backward passes per layer, each through the keys and values of T tokens, so
   * about {@code L T^2 d^3}. By default it is used while that is at most its cost on bert-base at this many
   * tokens (measured: about 1 min 40 s of CPU on the 2-core machine at 9 tokens; README), and the
   * estimate beyond; small models stay exact much longer.
   */
  public static final int DEFAULT_EXACT_MAX_TOKENS_BERT_BASE = 10;

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

  /** The default k for this input and model: 0 (exact) within the exact budget, else {@link #DEFAULT_SAMPLES}. */
  public static int defaultSamples(Encoding input, BertConfig config) {
    return exactCost(input.length(), config.numHiddenLayers(), config.hiddenSize())
        <= exactCost(DEFAULT_EXACT_MAX_TOKENS_BERT_BASE, 12, 768) ? 0 : DEFAULT_SAMPLES;
  }

  /** {@code L T^2 d^3}, the exact pass's cost up to a constant. */
  static double exactCost(int tokens, int layers, int hidden) {
    return (double) layers * tokens * tokens * Math.pow(hidden, 3);
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
    AttentionTrace t = model.trace(TraceRequest.of(input).mask(mask).top(1).maps(AttentionTrace.Maps.AS_RUN)
        .layerNorms()).get(0);
    double[][][] norms = r.norms();
    List<MapCorrelation> c = new ArrayList<>();
    for (int l = 0; l < norms.length; l++) {
      c.add(MapCorrelation.of(l + 1, norms[l], meanOverHeads(t.attention()[l]), widen(t.layerNorms()[l]),
          model.config().family().causal()));
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
