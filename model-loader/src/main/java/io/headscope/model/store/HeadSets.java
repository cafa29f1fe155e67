package io.headscope.model.store;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Named sets of heads to switch off, kept in one small text file the app writes and the CLI reads
 * ({@code --disable @gender}). One set a line, {@code name: 8-10, 9-6, L11} ({@code L11} or {@code 11}
 * is a whole layer); blank lines and lines starting with {@code #} are ignored. The names are checked
 * against a model only when a set is used, so one file serves every model.
 */
public record HeadSets(Path file, Map<String, String> sets) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.+-]+");
  private static final Pattern ITEM = Pattern.compile("[Ll]?\\d+(-(\\d+|\\*))?");
  /** What a line must look like, said in every error about one. */
  public static final String FORMAT = "NAME: HEADS, e.g. gender: 8-10, 9-6, L11";

  public HeadSets {
    sets = Collections.unmodifiableMap(new LinkedHashMap<>(sets));
  }

  /**
   * The user's file: {@code -Dheadscope.headsets}, else {@code $HEADSCOPE_HEAD_SETS}, else
   * {@code $XDG_CONFIG_HOME/headscope/head-sets.txt}, else {@code ~/.config/headscope/head-sets.txt}.
   * A config file, not the cache: the cache may be wiped, the sets are the user's work.
   */
  public static Path standardFile() {
    String p = System.getProperty("headscope.headsets");
    if (p == null || p.isBlank()) {
      p = System.getenv("HEADSCOPE_HEAD_SETS");
    }
    if (p != null && !p.isBlank()) {
      return Path.of(p);
    }
    String xdg = System.getenv("XDG_CONFIG_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
    return base.resolve("headscope").resolve("head-sets.txt");
  }

  /** The sets in {@code file}; none when it does not exist. A malformed line is refused, naming it. */
  public static HeadSets read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return new HeadSets(file, Map.of());
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the head sets in " + file + ": " + e.getMessage(), e);
    }
    Map<String, String> sets = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      String name = colon < 0 ? "" : line.substring(0, colon).strip();
      String heads = colon < 0 ? "" : line.substring(colon + 1).strip();
      if (!NAME.matcher(name).matches() || !wellFormed(heads)) {
        throw new HeadScopeException(file + " line " + (i + 1) + ": \"" + line + "\" is not " + FORMAT + ".");
      }
      sets.put(name, heads);
    }
    return new HeadSets(file, sets);
  }

  private static boolean wellFormed(String heads) {
    String[] items = heads.split(",");
    for (String item : items) {
      if (!ITEM.matcher(item.strip()).matches()) {
        return false;
      }
    }
    return items.length > 0;
  }

  /** These sets with {@code name} set to {@code heads} (replacing a set of that name). */
  public HeadSets with(String name, Collection<Head> heads, int headsPerLayer) {
    if (name == null || !NAME.matcher(name.strip()).matches()) {
      throw new HeadScopeException("A head set's name is letters, digits and _ . + - (no spaces): \"" + name + "\".");
    }
    if (heads.isEmpty()) {
      throw new HeadScopeException("No head is switched off: there is nothing to save as a set.");
    }
    Map<String, String> next = new LinkedHashMap<>(sets);
    next.put(name.strip(), describe(heads, headsPerLayer));
    return new HeadSets(file, next);
  }

  /** Writes the sets whole or not at all (an interrupted save never leaves half a file). */
  public void write() {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
    } catch (IOException e) {
      throw new HeadScopeException("Cannot create the folder of " + file + ": " + e.getMessage(), e);
    }
    StringBuilder text = new StringBuilder("# HeadScope head sets: NAME: heads (L11 = all of layer 11). "
        + "Used by the app's Heads menu and the CLI's --disable @NAME.\n");
    sets.forEach((n, h) -> text.append(n).append(": ").append(h).append('\n'));
    byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
    AtomicOutput.write(file, true, out -> out.write(bytes));
  }

  /** The heads of one set in a model of this shape; an unknown name is refused listing the known ones. */
  public Set<Head> heads(String name, int layers, int headsPerLayer) {
    String spec = sets.get(name);
    if (spec == null) {
      throw new HeadScopeException("No head set \"" + name + "\" in " + file + "; "
          + (sets.isEmpty() ? "it holds none (save one from the app's Heads menu)." : "known: " + String.join(", ", sets.keySet()) + "."));
    }
    try {
      return Head.parseList(spec.replaceAll("(?i)\\bL(?=\\d)", ""), layers, headsPerLayer);
    } catch (HeadScopeException e) {
      throw new HeadScopeException("Head set \"" + name + "\" (" + file + "): " + e.getMessage(), e);
    }
  }

  /**
   * Expands a head list that may name sets: {@code @gender,3-1} is the heads of set {@code gender} and
   * head 3-1. Lists without {@code @} are returned as they are.
   */
  public static Set<Head> parse(String spec, int layers, int headsPerLayer, java.util.function.Supplier<HeadSets> sets) {
    if (spec == null || !spec.contains("@")) {
      return Head.parseList(spec, layers, headsPerLayer);
    }
    Set<Head> out = new java.util.LinkedHashSet<>();
    List<String> plain = new ArrayList<>();
    HeadSets known = null;
    for (String item : spec.split(",")) {
      String s = item.strip();
      if (s.startsWith("@")) {
        known = known == null ? sets.get() : known;
        out.addAll(known.heads(s.substring(1).strip(), layers, headsPerLayer));
      } else {
        plain.add(s);
      }
    }
    out.addAll(Head.parseList(String.join(",", plain), layers, headsPerLayer));
    return out;
  }

  /** A set as the file writes it: whole layers as {@code L11}, other heads as {@code 8-10}, in order. */
  public static String describe(Collection<Head> heads, int headsPerLayer) {
    Set<Head> sorted = new TreeSet<>(heads);
    List<String> parts = new ArrayList<>();
    for (Head h : sorted) {
      boolean wholeLayer = true;
      for (int i = 0; i < headsPerLayer && wholeLayer; i++) {
        wholeLayer = sorted.contains(new Head(h.layer(), i));
      }
      if (!wholeLayer) {
        parts.add(h.toString());
      } else if (h.head() == 0) {
        parts.add("L" + (h.layer() + 1));
      }
    }
    return String.join(", ", parts);
  }
}
