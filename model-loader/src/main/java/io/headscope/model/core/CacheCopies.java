package io.headscope.model.core;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The files HeadScope derives into its cache from a user's files (a {@code tokenizer.json} built from a folder's
 * {@code vocab.txt} or {@code vocab.json} + {@code merges.txt}; an ONNX model's converted folder), each with the
 * user's file it stands for. A message about a problem in such a copy names the user's file instead
 * ({@link HeadScopeException} asks {@link #userFacing}): the user can open and fix that one, while the copy
 * in the cache is HeadScope's, rebuilt from it.
 */
public final class CacheCopies {
  private static final Map<String, String> ORIGINALS = new ConcurrentHashMap<>();

  private CacheCopies() {}

  /** Notes that {@code copy} in the cache was derived from {@code original} (said as a person reads it). */
  public static void note(Path copy, String original) {
    ORIGINALS.put(copy.toString(), original);
    ORIGINALS.put(copy.toAbsolutePath().normalize().toString(), original);
  }

  /** {@code message} with every noted copy named by the user's file it came from. */
  public static String userFacing(String message) {
    if (message == null || ORIGINALS.isEmpty()) {
      return message;
    }
    String m = message;
    for (Map.Entry<String, String> e : ORIGINALS.entrySet()) {
      if (m.contains(e.getKey())) {
        m = m.replace(e.getKey(), e.getValue());
      }
    }
    return m;
  }
}
