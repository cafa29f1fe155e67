package io.headscope.app.cli.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A question from the running request to its client, in the middle of the request, and the client's reply: what
 * lets a command call back into Python (TransformerLens-style hook functions) while the server waits. The question
 * is an event line of the running request's id ({@code {"id": .., "event": "hook", ..., "bytes": N}} and N raw
 * bytes); the reply a request line {@code {"op": "reply", "args": {"target": id, "call": k, ...}}}, read by the
 * server's reader at once and never answered. Knows no command: the command gives the fields and the bytes.
 */
public final class Exchange {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ProtocolWriter out;
  private final Supplier<JsonNode> runningId;
  private final BooleanSupplier cancelled;
  private final LinkedBlockingQueue<JsonNode> replies = new LinkedBlockingQueue<>();
  private volatile boolean closed;
  private long calls;

  /** The wait ended without a reply: the request was cancelled, or the client closed its end. */
  public static final class Ended extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Ended(String message) {
      super(message);
    }
  }

  Exchange(ProtocolWriter out, Supplier<JsonNode> runningId, BooleanSupplier cancelled) {
    this.out = out;
    this.runningId = runningId;
    this.cancelled = cancelled;
  }

  /**
   * Writes an event line for the running request with {@code fields} (and {@code "call"}, {@code "bytes"}), then
   * the bytes, and waits for the reply to this call: its {@code args}. Throws when the request is cancelled or the
   * client closed its end first.
   */
  public synchronized JsonNode ask(String event, ObjectNode fields, byte[] attachment) {
    JsonNode id = runningId.get();
    if (id == null) {
      throw new IllegalStateException("no request is running");
    }
    long call = ++calls;
    replies.clear(); // a reply to an earlier, abandoned call
    out.line(g -> {
      g.writeFieldName("id");
      JSON.writeTree(g, id);
      g.writeStringField("event", event);
      for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        g.writeFieldName(e.getKey());
        JSON.writeTree(g, e.getValue());
      }
      g.writeNumberField("call", call);
      g.writeNumberField("bytes", attachment.length);
    }, attachment);
    while (true) {
      if (closed) {
        throw new Ended("the client closed its end while the server waited for its " + event + " reply.");
      }
      if (cancelled.getAsBoolean()) {
        throw new Ended("cancelled.");
      }
      JsonNode r;
      try {
        r = replies.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new Ended("interrupted while waiting for the client's " + event + " reply.");
      }
      if (r != null && r.path("target").equals(id) && r.path("call").asLong() == call) {
        return r;
      }
    }
  }

  /** A reply line's args, from the reader. */
  void reply(JsonNode args) {
    if (args != null && args.isObject()) {
      replies.add(args);
    }
  }

  /** The client's end is closed (end of input, shutdown): every wait ends. */
  void close() {
    closed = true;
  }

  /** An empty object for a question's fields. */
  public static ObjectNode fields() {
    return JSON.createObjectNode();
  }
}
