package io.headscope.model;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Engine;
import io.headscope.model.engine.SpillFile;

/**
 * The queries and group keys a trace of summaries kept ({@link TraceRequest.Keep#SUMMARIES}), shared by the
 * traces of one batch, and the engine that recomputes any head's map from them ({@link
 * Engine#attentionMap}). They are in the run's {@link SpillFile}, not in memory: for a 22-layer Llama with
 * 32 query and 4 key/value heads of 64 at 2,048 tokens, 22 x 2,048 x (32 + 4) x 64 floats, 0.4 GB a trace;
 * one map reads back 2 x 2,048 x 64 of them (1 MB).
 */
final class OnDemandMaps {
  private final Engine engine;
  private final SpillFile.Region[] queries;
  private final SpillFile.Region[] keys;
  private final int width;

  /**
   * @param queries per layer (B, H, T, dh)
   * @param keys per layer (B, K, T, dh)
   * @param width T, the batch's padded width
   */
  OnDemandMaps(Engine engine, SpillFile.Region[] queries, SpillFile.Region[] keys, int width) {
    this.engine = engine;
    this.queries = queries;
    this.keys = keys;
    this.width = width;
  }

  /** Head {@code h}'s map for batch row {@code row} of real length {@code length}, [query][key]. */
  float[][] map(Head h, int row, int length) {
    SpillFile.Region q = queries[h.layer()];
    SpillFile.Region k = keys[h.layer()];
    int heads = q.dim(1);
    int groups = k.dim(1);
    int dh = q.dim(3);
    int group = h.head() / (heads / groups); // query head h reads key/value group h / (H / K)
    float[] query = slice(q, row, h.head(), dh);
    float[] key = slice(k, row, group, dh);
    try {
      synchronized (engine) { // one recomputation at a time, beside the model's own calls
        return engine.attentionMap(h.layer(), query, key, width, length);
      }
    } catch (IllegalStateException e) {
      throw new HeadScopeException("The model this trace came from is closed, so its maps cannot be recomputed.");
    }
  }

  /** Row {@code row}, head {@code head}: its (T, dh) block, contiguous in the (B, H, T, dh) layout. */
  private float[] slice(SpillFile.Region a, int row, int head, int dh) {
    long offset = ((long) row * a.dim(1) + head) * width * dh;
    return a.read(offset, width * dh);
  }
}
