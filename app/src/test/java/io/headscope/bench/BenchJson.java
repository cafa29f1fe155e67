package io.headscope.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.AtomicOutput;
import io.headscope.model.store.SafeFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ./headscope bench ... --json FILE}: the figures a benchmark prints, also as a JSON array, so
 * that runs (before/after a change, two machines) can be compared by a script. Each object:
 * {@code name, median_ms, peer, peer_median_ms, ratio} (the peer fields and the ratio null when a figure
 * has no peer). The file is written once, at the end, to a temporary file renamed into place: a
 * benchmark that fails or is stopped leaves no half-written file.
 */
public final class BenchJson {
  private static final List<Map<String, Object>> FIGURES = new ArrayList<>();
  private static Path target;

  private BenchJson() {}

  /**
   * Takes {@code --json FILE} out of the arguments (wherever it is) and returns the rest; checks before
   * the benchmark runs that the file can be written, else stops with one line.
   */
  public static String[] init(String[] args) {
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    int i = rest.indexOf("--json");
    if (i >= 0) {
      if (i + 1 >= rest.size() || rest.get(i + 1).startsWith("--")) {
        fail("--json needs a file name: --json FILE");
      }
      target = Path.of(rest.get(i + 1));
      rest.subList(i, i + 2).clear();
      try {
        AtomicOutput.check(target, true);
      } catch (HeadScopeException e) {
        fail(e.getMessage());
      }
    }
    return rest.toArray(String[]::new);
  }

  /** A figure without a peer. */
  public static void add(String name, double medianMs) {
    add(name, medianMs, null, Double.NaN);
  }

  /** A figure beside its peer measured in the same run; the ratio is ours / the peer's. */
  public static synchronized void add(String name, double medianMs, String peer, double peerMs) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("name", name);
    f.put("median_ms", finite(medianMs));
    f.put("peer", peer);
    f.put("peer_median_ms", peer == null ? null : finite(peerMs));
    f.put("ratio", peer == null ? null : finite(medianMs / peerMs));
    FIGURES.add(f);
  }

  /** Writes the file if --json was given (atomically; an existing file is replaced). */
  public static synchronized void write() {
    if (target == null) {
      return;
    }
    try {
      SafeFiles.writeAtomically(target, true, o -> new ObjectMapper().writerWithDefaultPrettyPrinter()
          .writeValue(new java.io.FilterOutputStream(o) {
            @Override
            public void close() throws java.io.IOException {
              flush(); // the caller owns the stream
            }
          }, FIGURES));
    } catch (HeadScopeException e) {
      fail(e.getMessage());
    }
    System.err.println("headscope: wrote " + target + " (" + FIGURES.size() + " figures)");
  }

  /** Forgets the figures and the file (for tests). */
  static synchronized void reset() {
    FIGURES.clear();
    target = null;
  }

  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null; // JSON has no NaN
  }

  private static void fail(String message) {
    System.err.println("headscope: " + message);
    System.exit(2);
  }
}
