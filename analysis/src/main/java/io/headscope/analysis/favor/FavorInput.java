package io.headscope.analysis.favor;

import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;

/**
 * Every head's queries, keys and exact map for one input, as plain arrays cut to its {@code n} tokens:
 * what a FAVOR+ map of any head at any m needs, so a screen can show one head's maps without running the
 * model again.
 */
public final class FavorInput {
  private final float[][][][] q;
  private final float[][][][] k;
  private final float[][][][] pattern;
  private final int dh;
  /** A causal model's maps: FAVOR+ in its unidirectional form ({@link Favor#map(float[][], float[][], double[][], boolean)}). */
  private final boolean causal;

  private FavorInput(RunResult r, int layers, int heads, int n, int dh, boolean causal) {
    this.dh = dh;
    this.causal = causal;
    q = new float[layers][heads][][];
    k = new float[layers][heads][][];
    pattern = new float[layers][heads][][];
    for (int l = 0; l < layers; l++) {
      Activation aq = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_Q, l));
      Activation ak = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_K, l));
      Activation ap = r.cache().get(HookPoint.pattern(l));
      for (int h = 0; h < heads; h++) {
        q[l][h] = aq.matrix(n, dh, 0, h);
        k[l][h] = ak.matrix(n, dh, 0, h);
        pattern[l][h] = ap.matrix(n, n, 0, h);
      }
    }
  }

  /** Runs the model once on {@code e}, keeping q, k and the maps. */
  public static FavorInput capture(BertModel model, Encoding e) {
    RunResult r = model.run(RunRequest.of(e).capture(Capture.points(HookPoint.Kind.ATTN_Q, HookPoint.Kind.ATTN_K,
        HookPoint.Kind.ATTN_PATTERN, HookPoint.Kind.RESID_PRE)));
    return of(r, model);
  }

  /** From a run that captured q, k and the pattern of every layer (one input, no padding). */
  static FavorInput of(RunResult r, BertModel model) {
    var c = model.config();
    int n = r.cache().get(HookPoint.pattern(0)).dim(2);
    return new FavorInput(r, c.numHiddenLayers(), c.numAttentionHeads(), n, c.headSize(), c.family().causal());
  }

  public int layers() {
    return q.length;
  }

  public int heads() {
    return q[0].length;
  }

  public float[][] q(int layer, int head) {
    return q[layer][head];
  }

  public float[][] k(int layer, int head) {
    return k[layer][head];
  }

  /** The exact softmax map {@code [n][n]}. */
  public float[][] exact(int layer, int head) {
    return pattern[layer][head];
  }

  /** The FAVOR+ map of a head with the directions {@code favor} draws for it (same seeds as the analysis). */
  public double[][] favor(int layer, int head, int m, RandomFeatures.Kind kind, long seed, int draw) {
    return Favor.map(q[layer][head], k[layer][head], FavorAnalysis.directions(seed, m, kind, layer, head, draw, dh),
        causal);
  }
}
