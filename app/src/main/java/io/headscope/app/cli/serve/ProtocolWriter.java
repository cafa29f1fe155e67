package io.headscope.app.cli.serve;

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
    byte[] bytes = (escapeLoneSurrogates(text.toString()) + "\n").getBytes(StandardCharsets.UTF_8);
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
  void answer(JsonNode id, Answer given) {
    Answer a = given;
    // a JSON result, and a command's files (a JSON object of file name to text), go into the line as JSON
    boolean json = a.ok() && !a.binary() && (a.format().equals("json") || a.format().equals("files"));
    if (json && !isJson(a.body())) {
      // a result that is not JSON would break the stream for every later answer: say so instead
      a = Answer.failure(Answer.INTERNAL, "internal error: the command's result is not valid JSON "
          + "(please report it; its command line prints it as it is)");
    }
    Answer answer = a;
    if (!answer.ok() || answer.binary() || !json) {
      line(g -> {
        g.writeFieldName("id");
        JSON.writeTree(g, id);
        g.writeBooleanField("ok", answer.ok());
        if (!answer.ok()) {
          g.writeStringField("error", answer.error());
          g.writeStringField("kind", answer.kind());
          return;
        }
        g.writeStringField("format", answer.format());
        if (answer.binary()) {
          g.writeNumberField("bytes", answer.body().length);
        } else {
          g.writeStringField("result", new String(answer.body(), StandardCharsets.UTF_8));
        }
        writeWarnings(g, answer);
      }, answer.binary() ? answer.body() : null);
      return;
    }
    // a JSON result is streamed into the line as it is, only its whitespace dropped: no copy as a String
    byte[] head;
    byte[] tail;
    try {
      head = ("{\"id\":" + escapeLoneSurrogates(JSON.writeValueAsString(id)) + ",\"ok\":true,\"format\":" + JSON.writeValueAsString(answer.format())
          + ",\"result\":")
          .getBytes(StandardCharsets.UTF_8);
      tail = ("," + JSON.writeValueAsString(JSON.createObjectNode().set("warnings", JSON.valueToTree(answer.warnings())))
          .substring(1) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    synchronized (this) {
      try {
        out.write(head);
        OutputStream body = new java.io.BufferedOutputStream(out, 1 << 16); // flushed, never closed
        compact(answer.body(), body);
        body.flush();
        out.write(tail);
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("the client no longer reads standard output", e);
      }
    }
  }

  /**
   * JSON text with each lone surrogate (a request id such as {@code "\ud800x"} that is no Unicode text) written
   * as its escape {@code \\ud800}: UTF-8 has no bytes for it, and encoding would make it {@code ?}, an id the
   * client never sent. Jackson writes other characters as they are, so a lone surrogate here can only stand
   * inside a string, where the escape means the same char to any JSON reader.
   */
  static String escapeLoneSurrogates(String json) {
    StringBuilder b = null;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      boolean lone = Character.isHighSurrogate(c) ? i + 1 >= json.length() || !Character.isLowSurrogate(json.charAt(i + 1))
          : Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(json.charAt(i - 1)));
      if (Character.isHighSurrogate(c) && !lone) {
        if (b != null) {
          b.append(c).append(json.charAt(i + 1));
        }
        i++;
        continue;
      }
      if (lone && b == null) {
        b = new StringBuilder(json.length() + 12).append(json, 0, i);
      }
      if (b != null) {
        b.append(lone ? String.format("\\u%04x", (int) c) : String.valueOf(c));
      }
    }
    return b == null ? json : b.toString();
  }

  private static void writeWarnings(JsonGenerator g, Answer a) throws IOException {
    g.writeArrayFieldStart("warnings");
    for (String w : a.warnings()) {
      g.writeString(w);
    }
    g.writeEndArray();
  }

  /**
   * A command's JSON (UTF-8) on one line: the whitespace between tokens dropped (a pretty-printed result
   * has line breaks), every byte inside strings and every number kept as the CLI wrote it. Bytes of a
   * multi-byte character are never whitespace, quotes or backslashes, so this works on the bytes.
   */
  static void compact(byte[] json, OutputStream to) throws IOException {
    boolean inString = false;
    for (int i = 0; i < json.length; i++) {
      byte c = json[i];
      if (inString) {
        to.write(c);
        if (c == '\\' && i + 1 < json.length) {
          to.write(json[++i]);
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
        to.write(c);
      } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        to.write(c);
      }
    }
  }

  /** {@link #compact(byte[], OutputStream)} of a String, for tests. */
  static String compact(String json) {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    try {
      compact(json.getBytes(StandardCharsets.UTF_8), b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  /** Whether {@code body} is exactly one JSON value (streamed through, no tree built). */
  static boolean isJson(byte[] body) {
    try (com.fasterxml.jackson.core.JsonParser p = JSON.getFactory().createParser(body)) {
      if (p.nextToken() == null) {
        return false;
      }
      p.skipChildren();
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
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

  /** Writes the fields of one line's object. */
  interface Body {
    void write(JsonGenerator g) throws IOException;
  }
}
