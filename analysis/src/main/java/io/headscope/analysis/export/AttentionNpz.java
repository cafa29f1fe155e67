package io.headscope.analysis.export;

import io.headscope.analysis.linguistics.WordTrace;
import io.headscope.model.AttentionTrace;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The arrays of {@link JsonExport#attention(AttentionTrace, float[][][], boolean, OutputStream)} as NumPy's
 * {@code .npz} ({@link Npz}): {@code tokens} (T,), {@code ids} int32 (T,), {@code attention} float32
 * (L, H, T, T), {@code value_norms} (L, H, T), with layer norms {@code layer_norms} (L, T, T); with
 * {@code words} also {@code words} (W,) and {@code word_of_token} int32 (T,), and {@code attention} and
 * {@code layer_norms} over words (W, W). The same float32 values the JSON prints.
 */
public final class AttentionNpz {
  private AttentionNpz() {}

  public static void write(AttentionTrace t, float[][][] layerNorms, boolean words, OutputStream out)
      throws IOException {
    FullMaps.require(t, "An export of the maps");
    WordTrace w = words ? WordTrace.of(t, layerNorms) : null;
    try (Npz npz = new Npz(out)) {
      npz.strings("tokens", t.tokens()).ints("ids", t.encoding().ids());
      if (w != null) {
        npz.strings("words", w.words().words()).ints("word_of_token", w.words().wordOf());
      }
      npz.floats("attention", w != null ? w.attention() : t.attention());
      npz.floats("value_norms", t.valueNorms());
      if (layerNorms != null) {
        npz.floats("layer_norms", w != null ? w.layerNorms() : layerNorms);
      }
    }
  }
}
