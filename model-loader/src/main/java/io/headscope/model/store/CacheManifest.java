package io.headscope.model.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.checkpoint.Safetensors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a cached model folder must hold: {@value #NAME}, written last when a model enters the cache,
 * lists every file with its size and SHA-256, and the modification time at which the hash was last
 * checked. A cached model is complete or it is not there: a folder whose files do not match its
 * manifest is repaired (converted or downloaded again) by whoever resolves it.
 *
 * <p>Each start checks sizes (a fraction of a millisecond); a file is hashed again only when its size
 * or modification time differs from the manifest's (SHA-256 of the 440 MB bert-base weights takes
 * 0.5-1 s with the file in the page cache, several seconds from a cold disk; see METHODS.md).
 *
 * <p>A folder written before manifests existed is checked by format instead (JSON parses,
 * safetensors' header fits the file's size, vocab.txt is UTF-8) and then given a manifest.
 */
public final class CacheManifest {
  public static final String NAME = ".headscope-manifest.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  private CacheManifest() {}

  /** One listed file. {@code mtime} is the modification time at which {@code sha256} was last checked. */
  record Entry(long size, String sha256, String mtime) {}

  /**
   * Hashes {@code files} (names in {@code dir}) and writes the manifest atomically. Call it when
   * everything else is in place: the manifest's presence says the folder is complete.
   */
  public static void write(Path dir, List<String> files) throws IOException {
    Map<String, Entry> entries = new TreeMap<>();
    for (String f : files) {
      Path p = dir.resolve(f);
      entries.put(f, new Entry(Files.size(p), sha256(p), mtime(p)));
    }
    store(dir, entries);
  }

  /**
   * Writes the manifest of a folder that was just found sound without one (made by an older HeadScope);
   * false when the cache cannot be written (read-only), in which case it is checked by format next time.
   */
  public static boolean adopt(Path dir, List<String> files) {
    try {
      write(dir, files);
      return true;
    } catch (IOException | HeadScopeException e) {
      return false;
    }
  }

  /** Whether {@code dir} has a manifest (a folder without one was written by an older HeadScope, or is incomplete). */
  public static boolean exists(Path dir) {
    return Files.isRegularFile(dir.resolve(NAME));
  }

  /**
   * Checks {@code dir} against its manifest, or by format when it has none (the caller then writes one
   * once the folder is complete).
   *
   * @param required files that must be there for the folder to be usable (checked only without manifest;
   *     a manifest lists them itself)
   * @return the damaged or missing files' names, each with what is wrong; empty when the folder is sound
   */
  public static Map<String, String> check(Path dir, List<String> required, List<String> optional) {
    Path manifest = dir.resolve(NAME);
    Map<String, Entry> entries = Files.isRegularFile(manifest) ? read(manifest) : null;
    try {
      return entries != null ? verify(dir, entries) : checkByFormat(dir, required, optional);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot check the cached model in " + dir + ": " + e.getMessage() + ".", e);
    }
  }

  /** "config.json is missing; model.safetensors is 100 bytes, expected 200" */
  public static String describe(Map<String, String> damage) {
    List<String> parts = new ArrayList<>();
    damage.forEach((file, what) -> parts.add(file + " " + what));
    return String.join("; ", parts);
  }

  private static Map<String, String> verify(Path dir, Map<String, Entry> entries) throws IOException {
    Map<String, String> damage = new TreeMap<>();
    boolean rehashed = false;
    for (Map.Entry<String, Entry> e : entries.entrySet()) {
      Path p = dir.resolve(e.getKey());
      Entry want = e.getValue();
      if (!Files.isRegularFile(p)) {
        damage.put(e.getKey(), "is missing");
        continue;
      }
      long size = Files.size(p);
      if (size != want.size()) {
        damage.put(e.getKey(), "is " + size + " bytes, expected " + want.size());
        continue;
      }
      String mtime = mtime(p);
      if (!mtime.equals(want.mtime())) {
        if (!sha256(p).equals(want.sha256())) {
          damage.put(e.getKey(), "does not match its SHA-256 (changed since it was cached)");
          continue;
        }
        e.setValue(new Entry(want.size(), want.sha256(), mtime)); // verified again: no need next time
        rehashed = true;
      }
    }
    if (damage.isEmpty() && rehashed) {
      try {
        store(dir, entries);
      } catch (HeadScopeException e) {
        // a read-only cache: the files are sound, they are simply hashed again next time
      }
    }
    return damage;
  }

  private static Map<String, String> checkByFormat(Path dir, List<String> required, List<String> optional)
      throws IOException {
    Map<String, String> damage = new TreeMap<>();
    List<String> present = new ArrayList<>();
    for (String f : required) {
      if (!Files.isRegularFile(dir.resolve(f))) {
        damage.put(f, "is missing");
      } else {
        present.add(f);
      }
    }
    for (String f : optional) {
      if (Files.isRegularFile(dir.resolve(f))) {
        present.add(f);
      }
    }
    for (String f : present) {
      String what = formatDamage(f, dir.resolve(f));
      if (what != null) {
        damage.put(f, what);
      }
    }
    return damage;
  }

  /**
   * What is wrong with a file judged by its format, or null when it reads as what its name says:
   * JSON files parse to an object, a safetensors header fits the file, a .txt file is UTF-8 text.
   */
  public static String formatDamage(String name, Path file) {
    try {
      if (name.endsWith(".json")) {
        JsonNode root;
        try {
          root = JSON.readTree(file.toFile());
        } catch (IOException e) {
          return "is not valid JSON";
        }
        return root != null && root.isObject() ? null : "is not a JSON object";
      }
      if (name.endsWith(".safetensors")) {
        try (Safetensors st = Safetensors.open(file)) {
          long dataEnd = st.tensors().values().stream().mapToLong(Safetensors.TensorInfo::end).max().orElse(0);
          long expected = 8 + headerLength(file) + dataEnd;
          long size = Files.size(file);
          return size == expected ? null : "is " + size + " bytes but its header describes " + expected;
        } catch (HeadScopeException e) {
          String m = e.getMessage();
          String prefix = file + " is ";
          return m.startsWith(prefix) ? "is " + m.substring(prefix.length()).replaceAll("\\.$", "") : m;
        }
      }
      if (name.endsWith(".txt")) {
        try {
          StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(Files.readAllBytes(file)));
          return null;
        } catch (CharacterCodingException e) {
          return "is not UTF-8 text";
        }
      }
      return null;
    } catch (IOException e) {
      return "cannot be read (" + e.getMessage() + ")";
    }
  }

  private static long headerLength(Path safetensors) throws IOException {
    try (InputStream in = Files.newInputStream(safetensors)) {
      byte[] b = in.readNBytes(8);
      return ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    }
  }

  private static Map<String, Entry> read(Path manifest) {
    Map<String, Entry> entries = new TreeMap<>();
    try {
      JsonNode files = JSON.readTree(manifest.toFile()).path("files");
      for (Iterator<Map.Entry<String, JsonNode>> it = files.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        JsonNode v = f.getValue();
        if (!v.path("size").canConvertToLong() || !v.path("sha256").isTextual() || f.getKey().contains("/")
            || f.getKey().contains("\\") || f.getKey().startsWith(".")) {
          return null;
        }
        entries.put(f.getKey(), new Entry(v.get("size").asLong(), v.get("sha256").asText(), v.path("mtime").asText("")));
      }
    } catch (IOException | RuntimeException e) {
      return null; // an unreadable manifest: judge the files by their format, as for an old cache
    }
    return entries.isEmpty() ? null : entries;
  }

  private static void store(Path dir, Map<String, Entry> entries) {
    ObjectNode root = JSON.createObjectNode();
    root.put("version", 1);
    ObjectNode files = root.putObject("files");
    entries.forEach((name, e) -> {
      ObjectNode f = files.putObject(name);
      f.put("size", e.size());
      f.put("sha256", e.sha256());
      f.put("mtime", e.mtime());
    });
    // the cache's own file: exempt from a run's protection of its inputs, the cache among them
    AtomicOutput.writeOwn(dir.resolve(NAME),
        out -> out.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root)));
  }

  private static String mtime(Path p) throws IOException {
    return Files.getLastModifiedTime(p).toString();
  }

  /**
   * The SHA-256 of a model file: from its folder's manifest when the manifest vouches for it (same size and
   * time as when it was hashed), else computed (about a second per 500 MB).
   */
  public static String sha256Of(Path file) {
    try {
      Path manifest = file.toAbsolutePath().getParent().resolve(NAME);
      Map<String, Entry> entries = Files.isRegularFile(manifest) ? read(manifest) : null;
      Entry e = entries == null ? null : entries.get(file.getFileName().toString());
      if (e != null && e.size() == Files.size(file) && e.mtime().equals(mtime(file))) {
        return e.sha256();
      }
      return sha256(file);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read " + file + ": " + e.getMessage() + ".", e);
    }
  }

  static String sha256(Path p) throws IOException {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 20];
      try (InputStream in = Files.newInputStream(p)) {
        for (int n; (n = in.read(buf)) > 0; ) {
          d.update(buf, 0, n);
        }
      }
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
