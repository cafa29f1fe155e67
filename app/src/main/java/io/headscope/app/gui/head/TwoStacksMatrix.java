package io.headscope.app.gui.head;

import io.headscope.app.gui.session.TwoStacks;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.MapsShown;
import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.Head;

/**
 * The head view's matrix of an encoder-decoder's head: the shown kind's map, its rows the query tokens and its
 * columns the key tokens (for cross-attention, target by source), intact, as run or their difference. Weights
 * only, over the tokens as the model reads them.
 */
final class TwoStacksMatrix {
  private TwoStacksMatrix() {}

  static HeadMatrix of(TwoStacks t, MapsShown shown, Head h) {
    AttentionKind k = t.kind();
    float[][] intact = t.intact().maps(k)[h.layer()][h.head()];
    float[][] run = t.asRun().maps(k)[h.layer()][h.head()];
    boolean signed = shown == MapsShown.DIFFERENCE;
    float[][] v = new float[intact.length][];
    float max = 0;
    for (int i = 0; i < intact.length; i++) {
      v[i] = new float[intact[i].length];
      for (int j = 0; j < intact[i].length; j++) {
        v[i][j] = switch (shown) {
          case INTACT -> intact[i][j];
          case AS_RUN -> run[i][j];
          case DIFFERENCE -> run[i][j] - intact[i][j];
        };
        max = Math.max(max, signed ? Math.abs(v[i][j]) : v[i][j]);
      }
    }
    return new HeadMatrix(h, HeadMatrix.Display.WEIGHTS, HeadMatrix.PairFilter.ALL, v, t.intact().queryTokens(k),
        t.intact().keyTokens(k), 0, 0, max, shown, false);
  }
}
