package io.headscope.analysis.export;

import io.headscope.model.AttentionTrace;
import io.headscope.model.core.HeadScopeException;

/**
 * The one line an export of every map says for a trace of summaries ({@link AttentionTrace#hasFullMaps} false: the
 * app keeps summaries once an input's maps pass what it holds whole). Every map at once is what such a trace
 * exists not to hold, and the file would be as large as the maps, so the export is refused rather than made by
 * recomputing them all; one head's map stays available ({@link AttentionTrace#map}).
 */
public final class FullMaps {
  private FullMaps() {}

  /** Refuses a trace of summaries in one line naming the size its maps would have. */
  public static void require(AttentionTrace t, String what) {
    if (t.hasFullMaps()) {
      return;
    }
    long n = t.tokens().size();
    long bytes = 4L * t.layers() * t.heads() * n * n;
    throw new HeadScopeException(what + " holds every head's map, and this input's maps (" + t.layers() + " layers x "
        + t.heads() + " heads x " + n + "^2 tokens, " + (bytes >> 20) + " MB of float32) are kept as summaries: "
        + "shorten the input to export them, or open one head's map.");
  }
}
