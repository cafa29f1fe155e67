package io.headscope.analysis.neuron;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;

/**
 * BertViz's neuron view of one head for one query token: how the query vector q and each key vector k
 * make the map, {@code score_j = sum_d q_d k_jd / sqrt(dh)} and {@code a_j = softmax_j(score)}. The
 * elementwise products are what the view draws per dimension; the engine's own scores and map row are
 * kept beside them, so the view shows both and a test can hold one against the other.
 *
 * @param tokens the input's tokens
 * @param q the query vector, {@code dh} long
 * @param k the key vectors, {@code [n][dh]}
 * @param scores {@code q·k_j / sqrt(dh)} computed here in double; a causal model's later keys (and keys
 *     beyond a sliding window) are NaN
 * @param softmax the softmax of {@code scores} over the keys the query may see
 * @param engineScores the scores the engine captured ({@code attn.hook_scores}), without the padding mask
 * @param attention the map row the engine computed ({@code attn.hook_pattern})
 */
public record NeuronView(Head head, int query, List<String> tokens, float[] q, float[][] k, double[] scores,
    double[] softmax, float[] engineScores, float[] attention) {

  /** Runs the model once on {@code e} and reads one head's q, k, scores and map row for {@code query}. */
  public static NeuronView of(BertModel model, Encoding e, Head head, int query) {
    var c = model.config();
    if (head.layer() >= c.numHiddenLayers() || head.head() >= c.numAttentionHeads()) {
      throw new HeadScopeException("Head " + head + " is not in " + model.name() + ".");
    }
    int n = e.length();
    if (query < 0 || query >= n) {
      throw new HeadScopeException("Query position " + query + " is outside the input's " + n + " tokens.");
    }
    int l = head.layer();
    RunResult r = model.run(RunRequest.of(e).capture(Capture.points(HookPoint.Kind.ATTN_Q, HookPoint.Kind.ATTN_K,
        HookPoint.Kind.ATTN_SCORES, HookPoint.Kind.ATTN_PATTERN)));
    int dh = c.headSize();
    float[][] q = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_Q, l)).matrix(n, dh, 0, head.head());
    float[][] k = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_K, l)).matrix(n, dh, 0, head.head());
    Activation scores = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_SCORES, l));
    Activation pattern = r.cache().get(HookPoint.pattern(l));
    float[] engineScores = scores.matrix(n, n, 0, head.head())[query];
    float[] attention = pattern.matrix(n, n, 0, head.head())[query];
    // a window is the layer's: every layer of a Mistral, ModernBERT's local layers only
    int window = c.parts().windowed(l) ? c.parts().window() : 0;
    return of(head, query, e.tokens(), q[query], k, c.family().causal(), window, engineScores, attention);
  }

  static NeuronView of(Head head, int query, List<String> tokens, float[] q, float[][] k, boolean causal,
      float[] engineScores, float[] attention) {
    return of(head, query, tokens, q, k, causal, 0, engineScores, attention);
  }

  /**
   * From q and k already read: the scores and softmax computed here (in double, max-shifted); a causal
   * model's query sees no later key, and with a sliding window (Mistral) none at {@code window} or more
   * tokens back; a bidirectional model's window (ModernBERT's local layers) keeps the keys within {@code
   * window / 2} on either side.
   */
  static NeuronView of(Head head, int query, List<String> tokens, float[] q, float[][] k, boolean causal,
      int window, float[] engineScores, float[] attention) {
    int n = k.length;
    double scale = 1 / Math.sqrt(q.length);
    double[] s = new double[n];
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < n; j++) {
      boolean hidden = causal ? j > query || window > 0 && j <= query - window
          : window > 0 && Math.abs(j - query) > window / 2;
      if (hidden) {
        s[j] = Double.NaN;
        continue;
      }
      double dot = 0;
      for (int d = 0; d < q.length; d++) {
        dot += (double) q[d] * k[j][d];
      }
      s[j] = dot * scale;
      max = Math.max(max, s[j]);
    }
    double[] a = new double[n];
    double sum = 0;
    for (int j = 0; j < n; j++) {
      a[j] = Double.isNaN(s[j]) ? 0 : Math.exp(s[j] - max);
      sum += a[j];
    }
    for (int j = 0; j < n; j++) {
      a[j] /= sum;
    }
    return new NeuronView(head, query, List.copyOf(tokens), q, k, s, a, engineScores, attention);
  }

  /** The elementwise product {@code q_d k_jd} of one key, what the view draws per dimension. */
  public double[] product(int key) {
    double[] p = new double[q.length];
    for (int d = 0; d < q.length; d++) {
      p[d] = (double) q[d] * k[key][d];
    }
    return p;
  }

  /** The largest absolute value among q, the keys and their products: the colour scale of the view. */
  public double maxAbs() {
    double m = 0;
    for (float v : q) {
      m = Math.max(m, Math.abs(v));
    }
    for (float[] row : k) {
      for (float v : row) {
        m = Math.max(m, Math.abs(v));
      }
    }
    return m;
  }
}
