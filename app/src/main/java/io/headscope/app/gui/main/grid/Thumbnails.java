package io.headscope.app.gui.main.grid;

import io.headscope.analysis.linguistics.WordAttention;
import io.headscope.app.render.MapsShown;
import io.headscope.app.render.Palette;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * The grid's thumbnails as pixels, computed on a thread of their own (not the model's worker, which
 * may be busy with the next input, and not the FX thread, which must stay free for frames).
 */
final class Thumbnails {
  /** One head's thumbnail: ARGB pixels, row-major. */
  record Pixels(int[] argb, int width, int height) {}

  private static final ExecutorService THREAD = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "headscope-thumbnails");
    t.setDaemon(true);
    return t;
  });

  private Thumbnails() {}

  /**
   * Computes every head's thumbnail of the maps shown and hands them over together. Each map is on its
   * own scale (its maximum, or its largest magnitude for a difference), so weak structure stays
   * visible; a difference uses the diverging scale.
   */
  static void draw(AttentionTrace intact, AttentionTrace run, MapsShown shown, boolean words, List<Head> heads,
      int side, Consumer<Map<Head, Pixels>> done) {
    THREAD.execute(() -> done.accept(compute(intact, run, shown, words, heads, side)));
  }

  /** With {@code words}, each map is first converted to words (Clark's conversion, {@link WordAttention}). */
  static Map<Head, Pixels> compute(AttentionTrace intact, AttentionTrace run, MapsShown shown, boolean words,
      List<Head> heads, int side) {
    // a trace of summaries holds no map but each head's thumbnail, max-pooled in the run as Palette.pooled
    // pools (a difference is then the thumbnails' difference; words need the full maps: the head view has them)
    boolean kept = !intact.hasFullMaps() || !run.hasFullMaps();
    io.headscope.model.HeadSummaries si = kept ? intact.summaries(side) : null;
    io.headscope.model.HeadSummaries sr = kept ? run.summaries(side) : null;
    WordAttention.Words w = words && !kept ? WordAttention.of(intact.tokens()) : null;
    Map<Head, Pixels> out = new HashMap<>();
    for (Head h : heads) {
      if (h.layer() >= intact.layers() || h.head() >= intact.heads()) {
        out.put(h, null);
        continue;
      }
      float[][] m = kept ? switch (shown) {
        case INTACT -> si.thumbnail(h);
        case AS_RUN -> sr.thumbnail(h);
        case DIFFERENCE -> Palette.difference(sr.thumbnail(h), si.thumbnail(h));
      } : switch (shown) {
        case INTACT -> intact.map(h);
        case AS_RUN -> run.map(h);
        case DIFFERENCE -> Palette.difference(run.map(h), intact.map(h));
      };
      if (w != null) {
        m = w.map(m);
      }
      boolean signed = shown == MapsShown.DIFFERENCE;
      float[][] p = signed ? Palette.pooledSigned(m, side) : Palette.pooled(m, side);
      int[] px = signed ? Palette.divergingPixels(p, Palette.maxAbs(p)) : Palette.pixels(p, Palette.max(p));
      out.put(h, new Pixels(px, p.length == 0 ? 1 : p[0].length, Math.max(1, p.length)));
    }
    return out;
  }
}
