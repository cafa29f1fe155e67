package io.headscope.analysis.linguistics;

import io.headscope.model.AttentionTrace;

/**
 * A trace of typed text read word by word: every head's map (and each layer's norm map, when the
 * trace has them) through Clark's conversion ({@link WordAttention}), the words grouped from the
 * WordPiece {@code ##} continuation pieces. The trace itself is untouched, so scores and categories
 * stay on wordpieces.
 *
 * @param words the words and each wordpiece's word
 * @param attention {@code [layer][head][word][word]}, each row summing to 1
 * @param layerNorms {@code [layer][word][word]}, or null when the trace has none
 */
public record WordTrace(WordAttention.Words words, float[][][][] attention, float[][][] layerNorms) {

  public static WordTrace of(AttentionTrace t) {
    return of(t, t.layerNorms());
  }

  /** As {@link #of(AttentionTrace)}, with the layer norm maps given separately (or null). */
  public static WordTrace of(AttentionTrace t, float[][][] layerNorms) {
    WordAttention.Words w = WordAttention.of(t.tokens());
    float[][][][] maps = new float[t.layers()][t.heads()][][];
    for (int l = 0; l < t.layers(); l++) {
      for (int h = 0; h < t.heads(); h++) {
        maps[l][h] = w.map(t.attention()[l][h]);
      }
    }
    float[][][] norms = null;
    if (layerNorms != null) {
      norms = new float[layerNorms.length][][];
      for (int l = 0; l < layerNorms.length; l++) {
        norms[l] = w.map(layerNorms[l]);
      }
    }
    return new WordTrace(w, maps, norms);
  }

  /** The word of the second sentence's first piece, or -1 for a single sentence. */
  public static int secondStart(WordAttention.Words w, int pieceSecondStart) {
    return pieceSecondStart < 0 ? -1 : w.wordOf()[pieceSecondStart];
  }
}
