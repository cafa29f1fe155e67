package io.headscope.analysis.export;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.headscope.model.EncoderDecoderTrace;
import io.headscope.model.MaskPrediction;
import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * An encoder-decoder's maps and next-token predictions as JSON (T5, BART): the source and the target with
 * their ids, and the three kinds of maps, {@code [layer][head][query][key]} with 0-based indices; the maps also
 * as a .npz ({@link #npz}).
 */
public final class EncoderDecoderJson {
  private static final JsonFactory FACTORY = new JsonFactory();

  private EncoderDecoderJson() {}

  /**
   * {@code {model, tokens, ids, target_tokens, target_ids, encoder_layers, decoder_layers, heads, disabled,
   * encoder_attention, decoder_attention, cross_attention}}: {@code tokens} and {@code ids} are the source's;
   * the decoder's maps are causal (a query's later keys 0); cross maps are {@code [target query][source key]};
   * {@code disabled} lists the heads switched off per kind (1-based, as the options take them), each
   * kind's maps as run.
   */
  public static void attention(EncoderDecoderTrace t, OutputStream out) throws IOException {
    try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      header(g, t);
      g.writeFieldName("encoder_attention");
      nested(g, t.encoder());
      g.writeFieldName("decoder_attention");
      nested(g, t.decoder());
      g.writeFieldName("cross_attention");
      nested(g, t.cross());
      g.writeEndObject();
    }
  }

  /**
   * {@code {model, tokens, ids, target_tokens, target_ids, ..., predictions[i]}}: at target position i, the
   * token there and the most probable next tokens (the decoder's input is the target as tokenized, so
   * position i predicts what follows target token i); with heads switched off, {@code intact[i]} the same
   * with every head on.
   */
  public static void predictions(EncoderDecoderTrace run, EncoderDecoderTrace intact, OutputStream out)
      throws IOException {
    try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      header(g, run);
      g.writeFieldName("predictions");
      next(g, run);
      if (intact != null && intact != run) {
        g.writeFieldName("intact");
        next(g, intact);
      }
      g.writeEndObject();
    }
  }

  /**
   * The maps as NumPy's .npz under BertViz's argument names, {@code encoder_tokens}, {@code decoder_tokens}
   * (the source's and the target's tokens), {@code encoder_attention}, {@code decoder_attention}, {@code
   * cross_attention} (float32, layer x head x query x key): what {@code head_view(encoder_attention=...)} takes,
   * and what {@code headscope html --arrays} draws; also {@code encoder_ids} and {@code decoder_ids} (int32, the
   * tokens' vocabulary ids, which the page does not draw).
   */
  public static void npz(EncoderDecoderTrace t, OutputStream out) throws IOException {
    try (Npz npz = new Npz(out)) {
      npz.strings("encoder_tokens", t.source().tokens()).strings("decoder_tokens", t.target().tokens());
      npz.ints("encoder_ids", t.source().ids()).ints("decoder_ids", t.target().ids());
      npz.floats("encoder_attention", t.encoder()).floats("decoder_attention", t.decoder())
          .floats("cross_attention", t.cross());
    }
  }

  private static void next(JsonGenerator g, EncoderDecoderTrace t) throws IOException {
    g.writeStartArray();
    List<String> tokens = t.target().tokens();
    for (int i = 0; i < t.next().size(); i++) {
      g.writeStartObject();
      g.writeNumberField("position", i);
      g.writeStringField("after", tokens.get(i));
      g.writeArrayFieldStart("top");
      for (MaskPrediction.TokenProbability p : t.next().get(i)) {
        g.writeStartObject();
        g.writeStringField("token", p.token());
        g.writeNumberField("id", p.id());
        g.writeNumberField("probability", p.probability());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  private static void header(JsonGenerator g, EncoderDecoderTrace t) throws IOException {
    g.writeStringField("model", t.model());
    strings(g, "tokens", t.source().tokens());
    g.writeFieldName("ids");
    g.writeArray(t.source().ids(), 0, t.source().ids().length);
    strings(g, "target_tokens", t.target().tokens());
    g.writeFieldName("target_ids");
    g.writeArray(t.target().ids(), 0, t.target().ids().length);
    g.writeNumberField("encoder_layers", t.encoder().length);
    g.writeNumberField("decoder_layers", t.decoder().length);
    g.writeNumberField("heads", t.encoder()[0].length);
    g.writeObjectFieldStart("disabled");
    for (AttentionKind k : AttentionKind.values()) {
      HeadMask m = t.mask().of(k);
      g.writeArrayFieldStart(k.label);
      for (Head h : m.off()) {
        g.writeString(h.toString());
      }
      g.writeEndArray();
    }
    g.writeEndObject();
    if (!t.mask().isEmpty()) {
      g.writeStringField("mode", t.mask().masks().values().iterator().next().mode().name().toLowerCase(java.util.Locale.ROOT));
    }
  }

  private static void strings(JsonGenerator g, String name, List<String> values) throws IOException {
    g.writeArrayFieldStart(name);
    for (String s : values) {
      g.writeString(s);
    }
    g.writeEndArray();
  }

  private static void nested(JsonGenerator g, Object a) throws IOException {
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
      nested(g, inner);
    }
    g.writeEndArray();
  }
}
