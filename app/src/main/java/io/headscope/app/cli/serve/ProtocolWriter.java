package io.headscope.app.cli.serve;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The protocol's standard output: one JSON object per line, and after a line that announces
 * {@code "bytes":N} exactly N raw bytes. One lock around "line + bytes", so the reader's immediate answers
 * (hello, cancel) never land inside a worker's attachment.
 */
final class ProtocolWriter {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final OutputStream out;

  ProtocolWriter(OutputStream out) {
    this.out = out;
  }

  /** A line written by {@code body}, then {@code attachment} (nullable), flushed. */
  void line(Body body, byte[] attachment) {
    StringWriter text = new StringWriter();
    try (JsonGenerator g = JSON.getFactory().createGenerator(text)) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      g.writeStartObject();
      body.write(g);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    byte[] bytes = (text + "\n").getBytes(StandardCharsets.UTF_8);
    synchronized (this) {
      try {
        out.write(bytes);
        if (attachment != null) {
          out.write(attachment);
        }
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("the client no longer reads standard output", e);
      }
    }
  }

  void line(Body body) {
    line(body, null);
  }

  /** The answer to request {@code id}. */
  void answer(JsonNode id, Answer a) {
    line(g -> {
      g.writeFieldName("id");
      JSON.writeTree(g, id);
      g.writeBooleanField("ok", a.ok());
      if (!a.ok()) {
        g.writeStringField("error", a.error());
        g.writeStringField("kind", a.kind());
        return;
      }
      g.writeStringField("format", a.format());
      if (a.bytes() != null) {
        g.writeNumberField("bytes", a.bytes().length);
      } else if (a.format().equals("json")) {
        g.writeFieldName("result");
        g.writeRawValue(a.text() == null || a.text().isBlank() ? "null" : compact(a.text()));
      } else {
        g.writeStringField("result", a.text());
      }
      g.writeArrayFieldStart("warnings");
      for (String w : a.warnings()) {
        g.writeString(w);
      }
      g.writeEndArray();
    }, a.bytes());
  }

  /** A JSON answer whose result is a tree of our own (hello, cancel). */
  void answer(JsonNode id, JsonNode result) {
    line(g -> {
      g.writeFieldName("id");
      JSON.writeTree(g, id);
      g.writeBooleanField("ok", true);
      g.writeStringField("format", "json");
      g.writeFieldName("result");
      JSON.writeTree(g, result);
      g.writeArrayFieldStart("warnings");
      g.writeEndArray();
    });
  }

  /**
   * A command's JSON on one line: the whitespace between tokens dropped (a pretty-printed result has line
   * breaks), every character inside strings and every number kept as the CLI wrote it.
   */
  static String compact(String json) {
    StringBuilder b = new StringBuilder(json.length());
    boolean inString = false;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      if (inString) {
        b.append(c);
        if (c == '\\') {
          b.append(json.charAt(++i));
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
        b.append(c);
      } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** Writes the fields of one line's object. */
  interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  static JsonFactory factory() {
    return JSON.getFactory();
  }
}
