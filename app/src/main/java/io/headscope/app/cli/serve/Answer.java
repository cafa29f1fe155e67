package io.headscope.app.cli.serve;

import java.util.List;

/**
 * What one command request came to: a result ({@code format} json with the command's JSON text, csv or html
 * with its text, npz with its bytes) and the warnings it printed, or a failure of a {@code kind} (input,
 * usage, cancelled, internal) with one line saying why.
 */
public record Answer(String format, String text, byte[] bytes, List<String> warnings, String kind, String error) {
  public static final String INPUT = "input";
  public static final String USAGE = "usage";
  public static final String CANCELLED = "cancelled";
  public static final String INTERNAL = "internal";

  public static Answer result(String format, String text, List<String> warnings) {
    return new Answer(format, text, null, List.copyOf(warnings), null, null);
  }

  public static Answer binary(String format, byte[] bytes, List<String> warnings) {
    return new Answer(format, null, bytes, List.copyOf(warnings), null, null);
  }

  public static Answer failure(String kind, String error) {
    return new Answer(null, null, null, List.of(), kind, error);
  }

  public boolean ok() {
    return kind == null;
  }
}
