package io.headscope.app.gui.session;

import io.headscope.analysis.saliency.SaliencyResult;

/**
 * A saliency result with the input it was computed on (its token ids) and the words it followed: what the
 * head view needs to know whether the strip it draws over its tokens still belongs to them.
 *
 * @param result per-token scores
 * @param ids the input's token ids when it was computed
 * @param target the followed word
 * @param contrast the contrast word, or ""
 */
public record InputSaliency(SaliencyResult result, long[] ids, String target, String contrast) {
  public InputSaliency {
    ids = ids.clone();
  }

  /** Whether it was computed on an input with these token ids. */
  public boolean isFor(long[] input) {
    return java.util.Arrays.equals(ids, input);
  }
}
