package io.headscope.model;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Engine;

/**
 * The queries and group keys a trace of summaries kept ({@link TraceRequest.Keep#SUMMARIES}), shared by the
 * traces of one batch, and the engine that recomputes any head's map from them ({@link
 * Engine#attentionMap}). Plain Java arrays: for a 22-layer Llama with 32 query and 4 key/value heads of 64
 * at 2,048 tokens, 22 x 2,048 x (32 + 4) x 64 floats, 0.4 GB.
 */
final class OnDemandMaps {
  private final Engine engine;
  private final Activation[] queries;
  private final Activation[] keys;
  private final int width;

  /**
   * @param queries per layer (B, H, T, dh)
   * @param keys per layer (B, K, T, dh)
   * @param width T, the batch's padded width
   */
  OnDemandMaps(Engine engine, Activation[] queries, Activation[] keys, int width) {
    this.engine = engine;
    this.queries = queries;
    this.keys = keys;
    this.width = width;
  }

  /** Head {@code h}'s map for batch row {@code row} of real length {@code length}, [query][key]. */
  float[][] map(Head h, int row, int length) {
    Activation q = queries[h.layer()];
    Activation k = keys[h.layer()];
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

  private float[] slice(Activation a, int row, int head, int dh) {
    int offset = a.index(row, head, 0, 0);
    return java.util.Arrays.copyOfRange(a.data(), offset, offset + width * dh);
  }
}
