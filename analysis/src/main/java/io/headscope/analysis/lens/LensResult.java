package io.headscope.analysis.lens;

import java.util.List;

/**
 * The logit lens of one input: one row per stream (embeddings, then each layer) and read position.
 *
 * @param tokens the input's tokens
 * @param target the followed token id, or -1
 * @param contrast the contrast token id, or -1
 * @param rows layer-major: every position of the embeddings, then of layer 1, ...
 */
public record LensResult(List<String> tokens, long target, long contrast, List<LensRow> rows) {
  public LensResult {
    tokens = List.copyOf(tokens);
    rows = List.copyOf(rows);
  }

  /** The first layer (0 = embeddings) at whose output the target is the top token at this position, or -1. */
  public int firstTopLayer(int position) {
    for (LensRow r : rows) {
      if (r.position() == position && r.targetRank() == 1) {
        return r.layer();
      }
    }
    return -1;
  }
}
