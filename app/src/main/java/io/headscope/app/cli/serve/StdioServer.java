package io.headscope.app.cli.serve;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code headscope serve --stdio} (docs/PROTOCOL.md): requests as JSON lines on standard input, answers as
 * JSON lines on standard output. This thread reads and answers {@code hello}, {@code cancel} and
 * {@code shutdown} at once; one worker runs the command requests in the order they came, through
 * {@link Commands} (the CLI's own commands, in this process, on the model loaded once).
 */
public final class StdioServer {
  public static final int PROTOCOL = 1;
  /** The longest request line read; a longer one is answered with an error and skipped. */
  public static final int MAX_LINE_BYTES = 16 << 20;
  /** How long {@code shutdown} waits for the running request to stop before the process ends anyway. */
  static final long SHUTDOWN_WAIT_MS = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /**
   * The server's one model: as {@code --model} named it, as it loaded, and the options it loaded with. For an
   * encoder-decoder (T5, BART) {@code layers} and {@code heads} are the encoder's and {@code decoder} its
   * decoder's (null for a single stack).
   */
  public record Model(String spec, String name, String family, int layers, int heads, int maxTokens, boolean causal,
      boolean offline, String gelu, Decoder decoder) {
    /** A single-stack model. */
    public Model(String spec, String name, String family, int layers, int heads, int maxTokens, boolean causal,
        boolean offline, String gelu) {
      this(spec, name, family, layers, heads, maxTokens, causal, offline, gelu, null);
    }

    boolean names(String model) {
      return model.equals(spec) || model.equals(name);
    }
  }

  /** An encoder-decoder's decoder stack: its self-attention and cross-attention have these layers and heads. */
  public record Decoder(int layers, int heads) {}

  /** The commands requests run. */
  public interface Commands {
    /** The ops a request may name besides hello, cancel and shutdown. */
    List<String> ops();

    /**
     * Runs {@code op} with these options and answers; the work stops, where the command can, once
     * {@code cancelled} turns true. Never throws for a failing command: a failure is an answer.
     */
    Answer run(String op, List<String> options, AtomicBoolean cancelled);
  }

  private record Job(JsonNode id, String op, List<String> options, AtomicBoolean cancelled) {}

  private final InputStream in;
  private final ProtocolWriter out;
  private final Model model;
  private final Commands commands;
  private final String version;
  private final java.util.function.BooleanSupplier clientGone;
  /** How often, after the end of input, the server asks whether its client is still there. */
  static final long WATCH_MS = 500;

  private final Object state = new Object();
  private final ArrayDeque<Job> queued = new ArrayDeque<>();
  private Job running;
  private boolean closed;
  private final Exchange exchange;

  public StdioServer(InputStream in, OutputStream out, Model model, Commands commands, String version) {
    this(in, out, model, commands, version, () -> false);
  }

  /**
   * @param clientGone whether the client is gone (its process ended): asked every {@link #WATCH_MS} once
   *     standard input has ended, while requests still run; true stops them and the server
   */
  public StdioServer(InputStream in, OutputStream out, Model model, Commands commands, String version,
      java.util.function.BooleanSupplier clientGone) {
    this.clientGone = clientGone;
    this.in = new java.io.BufferedInputStream(in);
    this.out = new ProtocolWriter(out);
    this.model = model;
    this.commands = commands;
    this.version = version;
    this.exchange = new Exchange(this.out, () -> {
      synchronized (state) {
        return running == null ? null : running.id();
      }
    }, () -> {
      synchronized (state) {
        return running == null || running.cancelled().get();
      }
    });
  }

  /** Questions from the running request to its client (Python hook functions): see {@link Exchange}. */
  public Exchange exchange() {
    return exchange;
  }

  /** The line a server that could not load its model writes before it exits 1. */
  public static void refuse(OutputStream out, String error) {
    new ProtocolWriter(out).line(g -> {
      g.writeStringField("event", "error");
      g.writeStringField("error", error);
    });
  }

  /** Greets, serves until {@code shutdown} or the end of standard input, and returns the exit code (0). */
  public int serve() {
    try {
      out.line(g -> {
        g.writeStringField("event", "ready");
        g.writeNumberField("protocol", PROTOCOL);
        g.writeStringField("version", version);
        describeModel(g);
      });
    } catch (UncheckedIOException e) {
      System.err.println("headscope: " + e.getMessage() + "; stopping.");
      return 1; // nobody reads: not even the greeting got out
    }
    Thread worker = new Thread(this::work, "headscope-serve");
    worker.start();
    boolean shutdown = false;
    JsonNode shutdownId = NullNode.instance;
    try {
      byte[] line;
      while ((line = readLine()) != null) {
        JsonNode id = handle(line);
        if (id != null) {
          shutdown = true;
          shutdownId = id;
          break; // nothing after shutdown is read
        }
      }
    } catch (IOException e) {
      System.err.println("headscope: cannot read standard input (" + e.getMessage() + "); stopping.");
      shutdown = true;
    } catch (UncheckedIOException e) {
      System.err.println("headscope: " + e.getMessage() + "; stopping.");
      synchronized (state) {
        queued.clear();
        if (running != null) {
          running.cancelled().set(true);
        }
      }
      return 1; // nobody reads the answers any more
    }
    exchange.close(); // a request waiting for a reply would wait forever
    synchronized (state) {
      if (shutdown) {
        for (Job j : queued) {
          out.answer(j.id(), Answer.failure(Answer.CANCELLED, "cancelled: the server was shut down."));
        }
        queued.clear();
        if (running != null) {
          running.cancelled().set(true);
        }
      }
      closed = true; // at the end of input the worker finishes what is queued, then stops
      state.notifyAll();
    }
    try {
      if (shutdown) {
        worker.join(SHUTDOWN_WAIT_MS);
      } else {
        // the end of input: the queued requests still run, unless the client that sent them is gone (killed)
        while (worker.isAlive()) {
          worker.join(WATCH_MS);
          if (worker.isAlive() && clientGone.getAsBoolean()) {
            System.err.println("headscope: the client is gone (its process ended and standard input closed); "
                + "stopping the requests it sent.");
            synchronized (state) {
              queued.clear();
              if (running != null) {
                running.cancelled().set(true);
              }
            }
            worker.join(SHUTDOWN_WAIT_MS);
            return 1;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (shutdown) {
      JsonNode id = shutdownId;
      out.line(g -> {
        g.writeFieldName("id");
        JSON.writeTree(g, id);
        g.writeBooleanField("ok", true);
        g.writeNullField("result");
      });
    }
    return 0;
  }

  /** Answers or queues one request line; returns the request's id when it was a shutdown. */
  private JsonNode handle(byte[] line) {
    JsonNode request;
    try {
      request = JSON.readTree(line);
    } catch (IOException e) {
      String why = e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
      out.answer(NullNode.instance, Answer.failure(Answer.USAGE, "not a JSON request line: "
          + oneLine(why) + " (a request is one line: {\"id\": 1, \"op\": \"attention\", \"args\": {...}})."));
      return null;
    }
    if (request == null || request.isMissingNode()) {
      return null; // a blank line
    }
    if (!request.isObject()) {
      out.answer(NullNode.instance, Answer.failure(Answer.USAGE,
          "a request is a JSON object: {\"id\": 1, \"op\": \"attention\", \"args\": {...}}."));
      return null;
    }
    JsonNode id = request.path("id");
    if (id.isMissingNode()) {
      id = NullNode.instance;
    }
    if (!(id.isNull() || id.isTextual() || id.isIntegralNumber())) {
      out.answer(NullNode.instance, Answer.failure(Answer.USAGE, "\"id\" is an integer or a string."));
      return null;
    }
    JsonNode op = request.path("op");
    if (!op.isTextual()) {
      out.answer(id, Answer.failure(Answer.USAGE, "\"op\" names the request: hello, cancel, shutdown or a command ("
          + String.join(", ", commands.ops()) + ")."));
      return null;
    }
    JsonNode args = request.path("args");
    switch (op.asText()) {
      case "hello" -> hello(id, args);
      case "cancel" -> cancel(id, args);
      case "reply" -> exchange.reply(args); // a reply to the running request's question: never answered
      case "shutdown" -> {
        return id;
      }
      default -> queue(id, op.asText(), args);
    }
    return null;
  }

  private void hello(JsonNode id, JsonNode args) {
    JsonNode protocol = args.path("protocol");
    if (!protocol.isMissingNode() && !protocol.isNull() && !(protocol.isIntegralNumber() && protocol.asInt() == PROTOCOL)) {
      out.answer(id, Answer.failure(Answer.USAGE, "this server speaks protocol " + PROTOCOL + ", not " + protocol
          + "; use a client and a HeadScope of the same release."));
      return;
    }
    ObjectNode r = JsonNodeFactory.instance.objectNode();
    r.put("protocol", PROTOCOL);
    r.put("version", version);
    r.put("model", model.name());
    r.put("family", model.family());
    r.put("layers", model.layers());
    r.put("heads", model.heads());
    r.put("maxTokens", model.maxTokens());
    r.put("causal", model.causal());
    if (model.decoder() != null) {
      r.put("encoderDecoder", true);
      r.put("decoderLayers", model.decoder().layers());
      r.put("decoderHeads", model.decoder().heads());
    }
    commands.ops().forEach(r.putArray("ops")::add);
    out.answer(id, r);
  }

  private void cancel(JsonNode id, JsonNode args) {
    JsonNode target = args.path("target");
    String was = "unknown";
    synchronized (state) {
      if (running != null && running.id().equals(target)) {
        running.cancelled().set(true);
        was = "running";
      } else {
        for (Iterator<Job> it = queued.iterator(); it.hasNext(); ) {
          Job j = it.next();
          if (j.id().equals(target)) {
            it.remove();
            out.answer(j.id(), Answer.failure(Answer.CANCELLED, "cancelled before it started."));
            was = "queued";
            break;
          }
        }
      }
    }
    ObjectNode r = JsonNodeFactory.instance.objectNode();
    r.set("target", target.isMissingNode() ? NullNode.instance : target);
    r.put("was", was);
    out.answer(id, r);
  }

  private void queue(JsonNode id, String op, JsonNode args) {
    if (!commands.ops().contains(op)) {
      out.answer(id, Answer.failure(Answer.USAGE, "unknown op \"" + op + "\": use hello, cancel, shutdown or a command ("
          + String.join(", ", commands.ops()) + ")."));
      return;
    }
    List<String> options;
    try {
      options = RequestArgs.options(args, model);
    } catch (RequestArgs.Refused e) {
      out.answer(id, Answer.failure(Answer.USAGE, e.getMessage()));
      return;
    }
    synchronized (state) {
      queued.add(new Job(id, op, options, new AtomicBoolean()));
      state.notifyAll();
    }
  }

  /** The worker: one request at a time, in order; a cancelled one is answered "cancelled", its result dropped. */
  private void work() {
    while (true) {
      Job j;
      synchronized (state) {
        while (queued.isEmpty() && !closed) {
          try {
            state.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        j = queued.poll();
        if (j == null) {
          return;
        }
        running = j;
      }
      Answer a;
      try {
        a = commands.run(j.op(), j.options(), j.cancelled());
      } catch (RuntimeException | Error e) {
        a = Answer.failure(Answer.INTERNAL, "internal error: " + e + " (please report it; set HEADSCOPE_DEBUG=1 for details)");
      }
      synchronized (state) {
        running = null;
        if (j.cancelled().get()) {
          a = Answer.failure(Answer.CANCELLED, "cancelled.");
        }
      }
      // written outside the lock: while a large answer goes out, a cancel can still mark what is queued
      try {
        out.answer(j.id(), a);
      } catch (UncheckedIOException e) {
        System.err.println("headscope: " + e.getMessage() + "; stopping.");
        System.exit(1);
      }
    }
  }

  private void describeModel(com.fasterxml.jackson.core.JsonGenerator g) throws IOException {
    g.writeStringField("model", model.name());
    g.writeStringField("family", model.family());
    g.writeNumberField("layers", model.layers());
    g.writeNumberField("heads", model.heads());
    g.writeNumberField("maxTokens", model.maxTokens());
    g.writeBooleanField("causal", model.causal());
    if (model.decoder() != null) {
      g.writeBooleanField("encoderDecoder", true);
      g.writeNumberField("decoderLayers", model.decoder().layers());
      g.writeNumberField("decoderHeads", model.decoder().heads());
    }
  }

  /** One line of standard input without its line break, null at the end; an over-long line is skipped. */
  private byte[] readLine() throws IOException {
    while (true) {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      boolean tooLong = false;
      int b;
      while ((b = in.read()) != -1 && b != '\n') {
        if (line.size() < MAX_LINE_BYTES) {
          line.write(b);
        } else {
          tooLong = true;
        }
      }
      if (b == -1 && line.size() == 0) {
        return null;
      }
      if (tooLong) {
        out.answer(NullNode.instance, Answer.failure(Answer.USAGE, "a request line is at most " + MAX_LINE_BYTES
            + " bytes; this one was longer and was skipped."));
        if (b == -1) {
          return null;
        }
        continue;
      }
      return line.toByteArray();
    }
  }

  private static String oneLine(String s) {
    return String.valueOf(s).replaceAll("\\s+", " ").strip();
  }
}
