package io.headscope.app.cli.serve;

import java.util.List;

/**
 * What one command request came to: a result and the warnings the command printed, or a failure of a
 * {@code kind} (input, usage, cancelled, internal) with one line saying why. A result's {@code body} is
 * what the command line would have printed, UTF-8: the JSON of {@code format} json (put on one line when
 * written), the text of csv or html, or the bytes of a binary format (npz) sent as an attachment. Kept as
 * bytes, not a String: a 512-token attention map is hundreds of megabytes of JSON.
 */
public record Answer(String format, byte[] body, boolean binary, List<String> warnings, String kind, String error) {
  public static final String INPUT = "input";
  public static final String USAGE = "usage";
  public static final String CANCELLED = "cancelled";
  public static final String INTERNAL = "internal";

  /** A text result (json, csv, html). */
  public static Answer result(String format, byte[] body, List<String> warnings) {
    return new Answer(format, body, false, List.copyOf(warnings), null, null);
  }

  /** A binary result, sent as an attachment after its line. */
  public static Answer binary(String format, byte[] body, List<String> warnings) {
    return new Answer(format, body, true, List.copyOf(warnings), null, null);
  }

  public static Answer failure(String kind, String error) {
    return new Answer(null, null, false, List.of(), kind, error);
  }

  public boolean ok() {
    return kind == null;
  }
}
