package io.headscope.app.cli.serve;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A request's {@code args} as the command's long options: a string or number is {@code --name=value} (the
 * {@code =} keeps a value that starts with a dash a value), {@code true} the flag {@code --name},
 * {@code false} and {@code null} nothing, an array its items joined with commas. Options that would let a
 * request escape the pipe or the server's one model are refused.
 */
final class RequestArgs {
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*([-_][a-z0-9]+)*");

  private RequestArgs() {}

  /** Why a request is refused before its command runs: an answer of kind "usage". */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /**
   * @param served the server's {@code --model} (as given and as loaded), {@code --offline} and {@code --gelu}
   */
  static List<String> options(JsonNode args, StdioServer.Model served) throws Refused {
    List<String> out = new ArrayList<>();
    if (args == null || args.isNull() || args.isMissingNode()) {
      return out;
    }
    if (!args.isObject()) {
      throw new Refused("\"args\" is an object of options, e.g. {\"text\": \"...\"}.");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = args.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = e.getKey();
      JsonNode v = e.getValue();
      if (!NAME.matcher(key).matches()) {
        throw new Refused("\"" + key + "\" is not an option name: write a long option without its dashes, e.g. \"layer-norms\".");
      }
      String name = key.replace('_', '-');
      switch (name) {
        case "out", "force" -> throw new Refused("\"" + key + "\" is not taken over the protocol: the result comes on the pipe.");
        case "shard" -> {
          if (!v.isNull() && !(v.isBoolean() && !v.booleanValue())) {
            // a shard's result is a part file for `headscope merge`, which the protocol does not run
            throw new Refused("\"shard\" is not taken over the protocol: a shard writes a part file for `headscope "
                + "merge` on the command line; send the whole corpus in one request instead.");
          }
          continue;
        }
        case "help", "version" -> throw new Refused("\"" + key + "\" is not a request: see docs/PROTOCOL.md and `headscope " + "<command> --help`.");
        case "model" -> {
          if (!v.isNull() && !served.names(v.asText())) {
            throw new Refused("\"model\": this server runs " + served.spec() + "; start another server for "
                + v.asText() + " (one model per server).");
          }
          continue;
        }
        case "offline" -> {
          if (v.isBoolean() && v.booleanValue() && !served.offline()) {
            throw new Refused("\"offline\": this server was not started with --offline.");
          }
          continue;
        }
        case "gelu" -> {
          if (!v.isNull() && !v.asText().equals(served.gelu())) {
            throw new Refused("\"gelu\": this server runs " + (served.gelu() == null ? "the config's activation"
                : "--gelu " + served.gelu()) + "; start another server for --gelu " + v.asText() + ".");
          }
          continue;
        }
        default -> { }
      }
      if (v.isNull() || v.isBoolean() && !v.booleanValue()) {
        continue;
      }
      if (v.isBoolean()) {
        out.add("--" + name);
      } else if (v.isTextual() || v.isNumber()) {
        out.add("--" + name + "=" + v.asText());
      } else if (v.isArray()) {
        List<String> items = new ArrayList<>();
        for (JsonNode item : v) {
          if (!(item.isTextual() || item.isNumber())) {
            throw new Refused("\"" + key + "\": the items of a list are strings or numbers.");
          }
          items.add(item.asText());
        }
        out.add("--" + name + "=" + String.join(",", items));
      } else {
        throw new Refused("\"" + key + "\": a value is a string, a number, true/false/null or a list.");
      }
    }
    return out;
  }
}
