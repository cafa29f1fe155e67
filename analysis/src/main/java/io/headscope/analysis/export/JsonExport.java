package io.headscope.analysis.export;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.headscope.analysis.linguistics.WordTrace;
import io.headscope.analysis.predict.PredictionChange;
import io.headscope.analysis.favor.FavorHeads;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.MaskPrediction;
import io.headscope.model.MaskPrediction.TokenProbability;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * The JSON files of the CLI and the GUI's export, streamed (a 512-token trace is 144 maps of 262k
 * floats; no tree is built). Arrays are 0-based; head names in {@code disabled} are 1-based.
 */
public final class JsonExport {
  private static final JsonFactory FACTORY = new JsonFactory();

  private JsonExport() {}

  /**
   * {@code {model, tokens, ids, segments, layers, heads, truncatedWordpieces, disabled, maps,
   * attention[l][h][q][k], valueNorms[l][h][j]}}: {@code maps} is {@code intact} with every head on,
   * else {@code computed} (each head's own map; the layers above feel the heads in {@code disabled})
   * or {@code as-run} (after the switches), with the off {@code mode}.
   */
  public static void attention(AttentionTrace t, OutputStream out) throws IOException {
    attention(t, t.layerNorms(), out);
  }

  /**
   * {@link #attention(AttentionTrace, OutputStream)} plus, when {@code layerNorms} is not null,
   * {@code layerNorms[l][q][k]}: Kobayashi et al.'s layer-level norm map
   * {@code || sum_h A^h_qk f^h(x_k) ||} of each layer (METHODS.md).
   */
  public static void attention(AttentionTrace t, float[][][] layerNorms, OutputStream out) throws IOException {
    attention(t, layerNorms, false, out);
  }

  /**
   * {@link #attention(AttentionTrace, float[][][], OutputStream)}, or with {@code words} the word-level
   * maps (Clark's conversion, {@link WordTrace}): {@code level} is {@code words}, {@code words} lists
   * them ({@code [CLS]} and {@code [SEP]} included), {@code wordOfToken[t]} is each wordpiece's word,
   * and {@code attention[l][h][w][v]} and {@code layerNorms[l][w][v]} are over words; {@code tokens},
   * {@code ids}, {@code segments} and {@code valueNorms} stay per wordpiece (a norm has no word-level
   * meaning of its own).
   */
  public static void attention(AttentionTrace t, float[][][] layerNorms, boolean words, OutputStream out)
      throws IOException {
    FullMaps.require(t, "An export of the maps");
    WordTrace w = words ? WordTrace.of(t, layerNorms) : null;
    try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeStringField("model", t.model());
      g.writeArrayFieldStart("tokens");
      for (String s : t.tokens()) {
        g.writeString(s);
      }
      g.writeEndArray();
      g.writeFieldName("ids");
      g.writeArray(t.encoding().ids(), 0, t.encoding().ids().length);
      g.writeFieldName("segments");
      g.writeArray(t.encoding().segments(), 0, t.encoding().segments().length);
      g.writeNumberField("layers", t.layers());
      g.writeNumberField("heads", t.heads());
      g.writeNumberField("truncatedWordpieces", t.encoding().droppedWordpieces());
      g.writeArrayFieldStart("disabled");
      for (Head h : t.mask().off()) {
        g.writeString(h.toString());
      }
      g.writeEndArray();
      g.writeStringField("maps", t.mapsLabel());
      if (!t.mask().isEmpty()) {
        g.writeStringField("mode", t.mask().mode().name().toLowerCase(java.util.Locale.ROOT));
      }
      g.writeStringField("level", words ? "words" : "wordpieces");
      if (w != null) {
        g.writeArrayFieldStart("words");
        for (String s : w.words().words()) {
          g.writeString(s);
        }
        g.writeEndArray();
        g.writeFieldName("wordOfToken");
        g.writeArray(w.words().wordOf(), 0, w.words().wordOf().length);
      }
      g.writeFieldName("attention");
      writeNested(g, w != null ? w.attention() : t.attention());
      g.writeFieldName("valueNorms");
      writeNested(g, t.valueNorms());
      if (layerNorms != null) {
        g.writeFieldName("layerNorms");
        writeNested(g, w != null ? w.layerNorms() : layerNorms);
      }
      g.writeEndObject();
    }
  }

  /**
   * {@code {"model", "disabled", "mode", "predictions":[{"position", "top":[{token,id,probability}]}]}};
   * with heads switched off each prediction also has {@code before} and the change of the intact
   * model's top token ({@code original}: token, probability before and after, rank after, KL).
   */
  public static void predictions(AttentionTrace intact, AttentionTrace ablated, List<String> classLabels,
      OutputStream out) throws IOException {
    predictions(intact, ablated, FavorHeads.NONE, classLabels, out);
  }

  /**
   * The predictions JSON of a pass with heads off and/or heads on FAVOR+ ({@code favor}, written as the
   * field {@code favor} when there are any) beside the intact pass.
   */
  public static void predictions(AttentionTrace intact, AttentionTrace ablated, FavorHeads favor,
      List<String> classLabels, OutputStream out) throws IOException {
    boolean compared = !ablated.mask().isEmpty() || !favor.isEmpty();
    List<PredictionChange> changes = compared ? PredictionChange.compare(intact, ablated) : List.of();
    try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeStringField("model", intact.model());
      g.writeArrayFieldStart("tokens");
      for (String s : intact.tokens()) {
        g.writeString(s);
      }
      g.writeEndArray();
      g.writeArrayFieldStart("disabled");
      for (Head h : ablated.mask().off()) {
        g.writeString(h.toString());
      }
      g.writeEndArray();
      g.writeStringField("mode", ablated.mask().mode().name().toLowerCase(java.util.Locale.ROOT));
      if (!favor.isEmpty()) {
        g.writeObjectFieldStart("favor");
        g.writeArrayFieldStart("heads");
        for (Head h : favor.heads()) {
          g.writeString(h.toString());
        }
        g.writeEndArray();
        g.writeNumberField("features", favor.features());
        g.writeStringField("kind", favor.kind().label());
        g.writeNumberField("seed", favor.seed());
        g.writeNumberField("draw", favor.draw() + 1);
        g.writeEndObject();
      }
      g.writeArrayFieldStart("predictions");
      for (int i = 0; i < ablated.predictions().size(); i++) {
        MaskPrediction p = ablated.predictions().get(i);
        g.writeStartObject();
        g.writeNumberField("position", p.position());
        writeTop(g, "top", p.top());
        if (compared) {
          PredictionChange c = changes.get(i);
          writeTop(g, "before", c.before());
          g.writeObjectFieldStart("original");
          g.writeStringField("token", c.originalTop().token());
          g.writeNumberField("id", c.originalTop().id());
          g.writeNumberField("probabilityBefore", round(c.originalProbabilityBefore()));
          g.writeNumberField("probabilityAfter", round(c.originalProbabilityAfter()));
          g.writeNumberField("probabilityChange", round(c.probabilityChange()));
          g.writeNumberField("rankAfter", c.originalRankAfter());
          g.writeEndObject();
          g.writeNumberField("klDivergence", round(c.klDivergence()));
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      if (ablated.classProbabilities() != null) {
        g.writeArrayFieldStart("classes");
        for (int k = 0; k < ablated.classProbabilities().length; k++) {
          g.writeStartObject();
          g.writeStringField("label", k < classLabels.size() ? classLabels.get(k) : "LABEL_" + k);
          g.writeNumberField("probability", round(ablated.classProbabilities()[k]));
          if (compared) {
            g.writeNumberField("before", round(intact.classProbabilities()[k]));
          }
          g.writeEndObject();
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    }
  }

  private static void writeTop(JsonGenerator g, String field, List<TokenProbability> top) throws IOException {
    g.writeArrayFieldStart(field);
    for (TokenProbability tp : top) {
      g.writeStartObject();
      g.writeStringField("token", tp.token());
      g.writeNumberField("id", tp.id());
      g.writeNumberField("probability", round(tp.probability()));
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  private static double round(double v) {
    return Math.round(v * 1e6) / 1e6;
  }

  private static void writeNested(JsonGenerator g, Object a) throws IOException {
    if (a instanceof float[] row) {
      g.writeStartArray();
      for (float v : row) {
        g.writeNumber(v);
      }
      g.writeEndArray();
      return;
    }
    g.writeStartArray();
    for (Object inner : (Object[]) a) {
      writeNested(g, inner);
    }
    g.writeEndArray();
  }
}
