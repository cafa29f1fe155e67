package io.headscope.app.render;

import io.headscope.analysis.flow.Rollout;
import io.headscope.model.AttentionTrace;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Attention rollout of a trace's maps (every layer; {@link Rollout}), computed once per trace and kept
 * while the trace lives: every head of a layer shows its layer's rollout, and a person flips between
 * heads. Its cost grows with the cube of the length (about 20 ms at 128 tokens, over a second at 512), so
 * the head view computes long inputs' rollouts on the model's worker ({@link #needsWorker}).
 */
public final class RolloutCache {
  /** Up to this many tokens the rollout is computed where it is asked for. */
  public static final int INLINE_MAX_TOKENS = 128;

  private static final Map<AttentionTrace, float[][][]> CACHE = Collections.synchronizedMap(new WeakHashMap<>());

  private RolloutCache() {}

  /** {@code R_l[j][i]} for every layer (index l - 1) of the trace's maps, computed now if not yet. */
  public static float[][][] of(AttentionTrace t) {
    float[][][] r = CACHE.get(t);
    if (r == null) {
      double[][][] d = Rollout.of(t); // a trace of summaries gives its maps on demand
      r = new float[d.length][][];
      for (int l = 0; l < d.length; l++) {
        r[l] = new float[d[l].length][];
        for (int j = 0; j < d[l].length; j++) {
          r[l][j] = new float[d[l][j].length];
          for (int i = 0; i < d[l][j].length; i++) {
            r[l][j][i] = (float) d[l][j][i];
          }
        }
      }
      CACHE.put(t, r);
    }
    return r;
  }

  /** Whether the trace's rollout is not ready and too long to compute on the FX thread. */
  public static boolean needsWorker(AttentionTrace t) {
    return t != null && t.tokens().size() > INLINE_MAX_TOKENS && !CACHE.containsKey(t);
  }
}
