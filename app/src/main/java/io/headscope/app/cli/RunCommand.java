package io.headscope.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.analysis.export.Npz;
import io.headscope.analysis.hooks.HookRun;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.PointEdit;
import io.headscope.model.tokenizer.Encoding;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One forward pass with TransformerLens's hook names ({@code run_with_cache} and declarative {@code run_with_hooks}):
 * what Python's {@code hs.run} sends. The result is a .npz: the tokens, the log-probabilities at every position and
 * every activation asked for, under its name.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "One forward pass of one input or a batch, keeping the activations named as TransformerLens names "
        + "them (--cache blocks.3.attn.hook_pattern,blocks.*.hook_resid_post) and editing the pass at hook points, "
        + "heads and positions (--interventions JSON: zero, scale, set, add, mean, patch_from). Writes a .npz: tokens, "
        + "ids, lengths, log_probs (batch, position, vocab) and each activation in TransformerLens's shape. "
        + "docs/NOTEBOOK.md.")
final class RunCommand implements Callable<Integer> {
  @Option(names = "--text", paramLabel = "TEXT", description = "One input (segment a).")
  String text;

  @Option(names = "--pair", paramLabel = "TEXT", description = "Its second sentence (segment b).")
  String pair;

  @Option(names = "--inputs", paramLabel = "JSON",
      description = "A batch instead of --text: a JSON array of texts, or of [text, pair] arrays.")
  String inputs;

  @Option(names = "--cache", split = ",", paramLabel = "NAMES",
      description = "The activations to keep, by TransformerLens's names; * matches any characters.")
  List<String> cache = new ArrayList<>();

  @Option(names = "--interventions", paramLabel = "JSON",
      description = "A JSON array of edits: {\"hook\": NAME, \"op\": \"zero|scale|set|add|mean|patch_from\", "
          + "\"heads\": [..], \"positions\": [..], \"inputs\": [..], \"value\": X, \"source\": TEXT, "
          + "\"source_pair\": TEXT}; heads, positions and inputs 0-based, each optional (all).")
  String interventions;

  @Option(names = "--python-hooks", split = ",", paramLabel = "NAMES",
      description = "Served only (Python's hs.run(hooks=...)): at each point these names stand for, the server sends "
          + "the value to the client and waits for its reply (docs/PROTOCOL.md, \"Hook functions\").")
  List<String> pythonHooks = new ArrayList<>();

  @Option(names = "--no-logits", description = "Leave out log_probs (only the cache).")
  boolean noLogits;

  @Option(names = "--format", paramLabel = "npz", defaultValue = "npz", description = "npz (the only format).")
  String format;

  @Mixin JsonOutput output;

  @Mixin ModelOptions model;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The server's channel to the client while serving (Python hook functions), else null. */
  private static volatile io.headscope.app.cli.serve.Exchange exchange;

  static void exchange(io.headscope.app.cli.serve.Exchange e) {
    exchange = e;
  }
  private static final Set<String> EDIT_KEYS = Set.of("hook", "op", "heads", "positions", "inputs", "value", "source",
      "source_pair");

  @Override
  public Integer call() {
    if (!format.toLowerCase(Locale.ROOT).equals("npz")) {
      throw new UsageException("--format \"" + format + "\" is unknown: run writes npz.");
    }
    if (output.out == null && !Output.servingRequests()) {
      throw new UsageException("run writes a .npz, which is binary: give --out FILE.npz.");
    }
    if ((text == null) == (inputs == null)) {
      throw new UsageException("Give --text (one input) or --inputs (a JSON array of them), not both or neither.");
    }
    List<String[]> batch = text != null ? List.<String[]>of(new String[] {text, pair}) : batch(inputs);
    for (String[] in : batch) {
      ModelOptions.requireText(in[0], "the input");
    }
    List<HookRun.Edit> edits = edits(interventions);
    io.headscope.app.cli.serve.Exchange channel = exchange;
    if (!pythonHooks.isEmpty() && (channel == null || !Output.servingRequests())) {
      throw new UsageException("--python-hooks calls back into the client: it works only through headscope serve "
          + "(Python's hs.run(hooks=...)).");
    }
    List<HookRun.Hook> hooks = new ArrayList<>();
    for (int i = 0; i < pythonHooks.size(); i++) {
      int index = i;
      hooks.add(new HookRun.Hook(pythonHooks.get(i), (name, value) -> ask(channel, index, name, value)));
    }
    output.check();
    try (BertModel m = model.open()) {
      List<Encoding> encoded = new ArrayList<>();
      for (String[] in : batch) {
        Encoding e = m.encode(in[0], in[1]);
        Warnings.truncation(e);
        encoded.add(e);
      }
      HookRun.Result r = HookRun.run(m, encoded, cache, edits, hooks, !noLogits);
      output.write(o -> write(r, o), Output.Format.NPZ);
    }
    return 0;
  }

  private static void write(HookRun.Result r, java.io.OutputStream o) throws IOException {
    try (Npz z = new Npz(o)) {
      int b = r.inputs().size();
      int w = r.width();
      List<String> tokens = new ArrayList<>();
      int[] ids = new int[b * w];
      int[] lengths = new int[b];
      for (int i = 0; i < b; i++) {
        Encoding e = r.inputs().get(i);
        lengths[i] = e.length();
        for (int t = 0; t < w; t++) {
          tokens.add(t < e.length() ? e.tokens().get(t) : "");
          ids[i * w + t] = t < e.length() ? Math.toIntExact(e.ids()[t]) : 0;
        }
      }
      z.strings("tokens", tokens, new int[] {b, w});
      z.ints("ids", ids, new int[] {b, w});
      z.ints("lengths", lengths);
      if (r.logProbs() != null) {
        z.floats("log_probs", r.logProbs().data(), r.logProbs().shape());
      }
      if (r.classes() != null) {
        z.floats("class_probabilities", r.classes());
      }
      for (Map.Entry<String, Activation> e : r.cache().entrySet()) {
        z.floats(e.getKey(), e.getValue().data(), e.getValue().shape());
      }
    }
  }

  /**
   * One Python hook call: the value as little-endian float32 with its shape and name, to the client; its reply is
   * {@code "unchanged": true}, {@code "data"} (base64 of little-endian float32 of the same shape), or {@code "error"}.
   */
  private static Activation ask(io.headscope.app.cli.serve.Exchange channel, int index, HookRun.Name name,
      Activation value) {
    float[] v = value.data();
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4 * v.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(v);
    com.fasterxml.jackson.databind.node.ObjectNode f = io.headscope.app.cli.serve.Exchange.fields();
    f.put("hook", index);
    f.put("name", name.name());
    f.put("dtype", "<f4");
    var shape = f.putArray("shape");
    for (int d : value.shape()) {
      shape.add(d);
    }
    JsonNode reply;
    try {
      reply = channel.ask("hook", f, b.array());
    } catch (io.headscope.app.cli.serve.Exchange.Ended e) {
      throw new io.headscope.model.core.HeadScopeException(e.getMessage());
    }
    if (reply.hasNonNull("error")) {
      throw new io.headscope.model.core.HeadScopeException("the Python hook at " + name.name() + " raised: "
          + reply.get("error").asText());
    }
    if (reply.path("unchanged").asBoolean(false)) {
      return value;
    }
    byte[] raw;
    try {
      raw = java.util.Base64.getDecoder().decode(reply.path("data").asText(""));
    } catch (IllegalArgumentException e) {
      throw new UsageException("the reply to the hook at " + name.name() + " is not base64.");
    }
    if (raw.length != 4 * v.length) {
      throw new io.headscope.model.core.HeadScopeException("the Python hook at " + name.name() + " returned "
          + raw.length / 4 + " values for a value of shape " + java.util.Arrays.toString(value.shape()) + ".");
    }
    float[] out = new float[v.length];
    java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
    return new Activation(out, value.shape());
  }

  private static List<String[]> batch(String json) {
    JsonNode n = parse(json, "--inputs");
    if (!n.isArray() || n.isEmpty()) {
      throw new UsageException("--inputs must be a JSON array of texts (or [text, pair] arrays), not empty.");
    }
    List<String[]> out = new ArrayList<>();
    for (JsonNode x : n) {
      if (x.isTextual()) {
        out.add(new String[] {x.asText(), null});
      } else if (x.isArray() && (x.size() == 1 || x.size() == 2) && x.get(0).isTextual()
          && (x.size() == 1 || x.get(1).isTextual() || x.get(1).isNull())) {
        out.add(new String[] {x.get(0).asText(), x.size() == 2 && !x.get(1).isNull() ? x.get(1).asText() : null});
      } else {
        throw new UsageException("--inputs holds " + x + ": each input is a text or a [text, pair] array.");
      }
    }
    return out;
  }

  static List<HookRun.Edit> edits(String json) {
    List<HookRun.Edit> out = new ArrayList<>();
    if (json == null) {
      return out;
    }
    JsonNode n = parse(json, "--interventions");
    if (!n.isArray()) {
      throw new UsageException("--interventions must be a JSON array of edits.");
    }
    for (JsonNode e : n) {
      if (!e.isObject()) {
        throw new UsageException("An intervention is a JSON object {\"hook\": ..., \"op\": ...}, not " + e + ".");
      }
      e.fieldNames().forEachRemaining(k -> {
        if (!EDIT_KEYS.contains(k)) {
          throw new UsageException("An intervention has \"" + k + "\", which is not one of " + new java.util.TreeSet<>(EDIT_KEYS) + ".");
        }
      });
      if (!e.path("hook").isTextual() || !e.path("op").isTextual()) {
        throw new UsageException("An intervention needs \"hook\" (a name) and \"op\": " + e + ".");
      }
      PointEdit.Op op = switch (e.get("op").asText()) {
        case "zero" -> PointEdit.Op.ZERO;
        case "scale" -> PointEdit.Op.SCALE;
        case "set" -> PointEdit.Op.SET;
        case "add" -> PointEdit.Op.ADD;
        case "mean" -> PointEdit.Op.MEAN;
        case "patch_from" -> PointEdit.Op.PATCH;
        default -> throw new UsageException("\"op\" is \"" + e.get("op").asText()
            + "\": use zero, scale, set, add, mean or patch_from.");
      };
      boolean needsValue = op == PointEdit.Op.SCALE || op == PointEdit.Op.SET || op == PointEdit.Op.ADD;
      if (needsValue != e.has("value") || needsValue && !e.get("value").isNumber()) {
        throw new UsageException(needsValue ? "\"" + e.get("op").asText() + "\" needs a number \"value\": " + e + "."
            : "\"value\" belongs to scale, set and add only: " + e + ".");
      }
      if ((op == PointEdit.Op.PATCH) != e.has("source") || e.has("source") && !e.get("source").isTextual()) {
        throw new UsageException(op == PointEdit.Op.PATCH ? "patch_from needs \"source\", the input to patch from: " + e + "."
            : "\"source\" belongs to patch_from only: " + e + ".");
      }
      out.add(new HookRun.Edit(e.get("hook").asText(), op, indices(e, "inputs"), indices(e, "heads"),
          indices(e, "positions"), needsValue ? (float) e.get("value").asDouble() : 0f,
          e.has("source") ? e.get("source").asText() : null,
          e.path("source_pair").isTextual() ? e.get("source_pair").asText() : null));
    }
    return out;
  }

  private static int[] indices(JsonNode e, String key) {
    JsonNode v = e.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isInt()) {
      return new int[] {v.asInt()};
    }
    if (!v.isArray()) {
      throw new UsageException("\"" + key + "\" must be an index or a list of them (0-based): " + v + ".");
    }
    int[] out = new int[v.size()];
    for (int i = 0; i < out.length; i++) {
      if (!v.get(i).isInt()) {
        throw new UsageException("\"" + key + "\" must hold integers (0-based): " + v + ".");
      }
      out[i] = v.get(i).asInt();
    }
    return out;
  }

  private static JsonNode parse(String json, String option) {
    try {
      return JSON.readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UsageException(option + " is not JSON: " + e.getOriginalMessage() + ".");
    }
  }
}
