package io.headscope.analysis.shard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.headscope.analysis.corpus.Shard;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The partial result of one shard (format version 1): JSON lines, so that {@code head -1} says what a
 * file is. Line 1, the header:
 *
 * <pre>{"headscope_partial":2,"command":"classify","shard":"0/3","model":"bert-base-uncased",
 *  "models":{"weights":"…","tokenizer":"…","config":"…"},
 *  "corpus":{"file":"corpus.txt","sha256":"…","bytes":123},"settings":{…}}</pre>
 *
 * then one JSON object per record (a head's exact sums, or one input's results: the command decides),
 * and last {@code {"end":true,"records":N,"sha256":"…"}} (the records' lines hashed), so a file cut short
 * or edited is refused rather than merged. Everything that changes the result is in the header, the model
 * by the SHA-256 of its files (its name says nothing: two folders called {@code tiny-mlm}, one folder
 * retrained between shards); merge refuses parts whose headers disagree.
 */
public final class PartialFile {
  public static final String MAGIC = "headscope_partial";
  public static final int VERSION = 2;
  /** The most shards a corpus is split into (as {@code --shard} allows): a header saying more is damaged. */
  public static final int MAX_SHARDS = 1_000_000;

  /** Doubles are written as Java's shortest round-trip text and read back to the same bits. */
  public static final ObjectMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

  private PartialFile() {}

  /** Which corpus a shard read: its bytes' SHA-256 tells two corpora apart whatever their names. */
  public record CorpusId(String file, String sha256, long bytes) {}

  /**
   * @param settings every option that changes the numbers (mode, seed, ...), as text
   */
  public record Header(String command, Shard shard, String model, CorpusId corpus, Map<String, String> settings,
      Map<String, String> models) {
    public Header(String command, Shard shard, String model, CorpusId corpus, Map<String, String> settings) {
      this(command, shard, model, corpus, settings, Map.of());
    }

    /** The same header naming the models by the SHA-256 of their files ({@code weights}, {@code with_weights}...). */
    public Header withModels(Map<String, String> models) {
      return new Header(command, shard, model, corpus, settings, new java.util.TreeMap<>(models));
    }
  }

  /** A part read back: its header and its records in file order. */
  public record Part(Path path, Header header, List<JsonNode> records) {}

  /** Hashes the corpus file (streamed; about 1 s per GB), before any model work. */
  public static CorpusId fingerprint(Path corpus) {
    if (Files.exists(corpus) && !Files.isRegularFile(corpus)) {
      // a pipe would be used up by hashing it, and nothing would tell two shards' streams apart
      throw new HeadScopeException("--shard needs a corpus file, and " + corpus + " is "
          + (Files.isDirectory(corpus) ? "a folder" : "not a regular file (a pipe or a device?)") + ".");
    }
    try (InputStream in = Files.newInputStream(corpus)) {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      long bytes = 0;
      for (int n; (n = in.read(buf)) > 0; ) {
        sha.update(buf, 0, n);
        bytes += n;
      }
      return new CorpusId(corpus.toString(), HexFormat.of().formatHex(sha.digest()), bytes);
    } catch (NoSuchFileException e) {
      throw new HeadScopeException("The corpus file " + corpus + " does not exist.", e);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the corpus file " + corpus + ": " + e.getMessage() + ".", e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JDK has SHA-256
    }
  }

  /**
   * A shard's result to write: its header, its records, and what it holds in a few words for the
   * command's progress line (e.g. "12 inputs swept").
   */
  public record Contents(Header header, List<?> records, String summary) {
    /** The same part naming its models by their files' SHA-256 (see {@link Header#withModels}). */
    public Contents withModels(Map<String, String> models) {
      return new Contents(header.withModels(models), records, summary);
    }
  }

  /** The bytes of a part (the caller writes them atomically, or to stdout): header, records, end line. */
  public static SafeFiles.Content content(Contents part) {
    Header h = part.header();
    List<?> records = part.records();
    return o -> {
      Writer w = new OutputStreamWriter(o, StandardCharsets.UTF_8);
      Map<String, Object> head = new LinkedHashMap<>();
      head.put(MAGIC, VERSION);
      head.put("command", h.command());
      head.put("shard", h.shard().toString());
      head.put("model", h.model());
      head.put("models", new java.util.TreeMap<>(h.models()));
      head.put("corpus", h.corpus());
      head.put("settings", h.settings());
      w.write(JSON.writeValueAsString(head));
      w.write('\n');
      MessageDigest sha = sha256();
      for (Object r : records) {
        String line = JSON.writeValueAsString(r);
        sha.update((line + "\n").getBytes(StandardCharsets.UTF_8));
        w.write(line);
        w.write('\n');
      }
      Map<String, Object> end = new LinkedHashMap<>(); // Map.of's order changes from run to run
      end.put("end", true);
      end.put("records", records.size());
      end.put("sha256", HexFormat.of().formatHex(sha.digest()));
      w.write(JSON.writeValueAsString(end));
      w.write('\n');
      w.flush();
    };
  }

  /** Reads one part, refusing anything that is not a whole partial result of this version. */
  public static Part read(Path file) {
    if (Files.isDirectory(file)) {
      throw new HeadScopeException(file + " is a folder; give the partial results written with --shard.");
    }
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String first = r.readLine();
      JsonNode head = first == null ? null : parse(first);
      if (head == null || !head.has(MAGIC)) {
        throw new HeadScopeException(file + " is not a HeadScope partial result (those are written with --shard K/N).");
      }
      if (head.get(MAGIC).asInt() != VERSION) {
        throw new HeadScopeException(file + " is a partial result of format version " + head.get(MAGIC)
            + "; this HeadScope reads version " + VERSION + ".");
      }
      Header h = header(file, head);
      List<JsonNode> records = new ArrayList<>();
      MessageDigest sha = sha256();
      for (String line; (line = r.readLine()) != null; ) {
        JsonNode n = parse(line);
        if (n == null) {
          throw new HeadScopeException(file + " is damaged (line " + (records.size() + 2) + " is not JSON).");
        }
        if (n.path("end").asBoolean(false)) {
          if (n.path("records").asInt(-1) != records.size() || r.readLine() != null) {
            throw new HeadScopeException(file + " is damaged (its end line does not match its records).");
          }
          if (!HexFormat.of().formatHex(sha.digest()).equals(n.path("sha256").asText())) {
            throw new HeadScopeException(file + " is damaged (its records do not match their SHA-256 on the end line: "
                + "a record was changed, moved or deleted since the shard wrote it); run shard " + h.shard()
                + " again.");
          }
          return new Part(file, h, records);
        }
        sha.update((line + "\n").getBytes(StandardCharsets.UTF_8));
        records.add(n);
      }
      throw new HeadScopeException(file + " is incomplete (it has no end line): run shard " + h.shard() + " again.");
    } catch (NoSuchFileException e) {
      throw new HeadScopeException("The partial result " + file + " does not exist.", e);
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new HeadScopeException(file + " is not a HeadScope partial result (not UTF-8 text).", e);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read " + file + ": " + e.getMessage() + ".", e);
    }
  }

  private static JsonNode parse(String line) {
    try {
      JsonNode n = JSON.readTree(line);
      return n != null && n.isObject() ? n : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  private static Header header(Path file, JsonNode head) {
    try {
      String[] kn = head.path("shard").asText().split("/");
      Shard shard = new Shard(Integer.parseInt(kn[0]), Integer.parseInt(kn[1]));
      if (shard.count() > MAX_SHARDS) {
        throw new HeadScopeException(file + " says it is shard " + shard + ", but --shard splits a corpus into at "
            + "most " + MAX_SHARDS + " parts: it is damaged.");
      }
      Map<String, String> models = new java.util.TreeMap<>();
      head.path("models").fields().forEachRemaining(e -> models.put(e.getKey(), e.getValue().asText()));
      if (models.isEmpty()) {
        throw new IllegalArgumentException("no model identity");
      }
      JsonNode c = head.path("corpus");
      Map<String, String> settings = new LinkedHashMap<>();
      head.path("settings").fields().forEachRemaining(e -> settings.put(e.getKey(), e.getValue().asText()));
      String command = head.path("command").asText();
      if (command.isEmpty() || !c.hasNonNull("sha256")) {
        throw new IllegalArgumentException("no command or corpus");
      }
      return new Header(command, shard, head.path("model").asText(),
          new CorpusId(c.path("file").asText(), c.path("sha256").asText(), c.path("bytes").asLong()), settings,
          models);
    } catch (HeadScopeException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new HeadScopeException(file + " is damaged (its header line is incomplete).", e);
    }
  }

  /**
   * Reads the parts of one run and checks that they belong together: one command, model, corpus and
   * settings, every shard of N exactly once. Returns them in shard order.
   */
  public static List<Part> readAll(List<Path> files) {
    List<Part> parts = files.stream().map(PartialFile::read).toList();
    Part first = parts.get(0);
    Header a = first.header();
    // by index, not an array of N: a part claiming a huge N must be answered, not run out of memory
    java.util.TreeMap<Integer, Part> byIndex = new java.util.TreeMap<>();
    for (Part p : parts) {
      Header b = p.header();
      String pair = first.path() + " and " + p.path();
      if (!b.command().equals(a.command())) {
        throw new HeadScopeException(pair + " are parts of different commands (" + a.command() + ", " + b.command()
            + "): merge the parts of one run.");
      }
      if (!b.model().equals(a.model())) {
        throw new HeadScopeException(pair + " were run with different models (" + a.model() + ", " + b.model()
            + "): merge the parts of one run.");
      }
      if (!b.models().equals(a.models())) {
        throw new HeadScopeException(pair + " were run with different checkpoints of " + a.model() + " (the SHA-256 "
            + "of their files differ: " + differing(a.models(), b.models()) + "): merge the parts of one run.");
      }
      if (!b.corpus().sha256().equals(a.corpus().sha256())) {
        throw new HeadScopeException(pair + " come from different corpora (" + a.corpus().file() + " sha256 "
            + a.corpus().sha256().substring(0, 12) + "…, " + b.corpus().file() + " sha256 "
            + b.corpus().sha256().substring(0, 12) + "…): merge the parts of one run.");
      }
      if (!b.settings().equals(a.settings())) {
        throw new HeadScopeException(pair + " were run with different settings (" + a.settings() + ", "
            + b.settings() + "): merge the parts of one run.");
      }
      if (b.shard().count() != a.shard().count()) {
        throw new HeadScopeException(pair + " split the corpus differently (shard " + a.shard() + ", shard "
            + b.shard() + "): merge the parts of one run.");
      }
      Part seen = byIndex.get(b.shard().index());
      if (seen != null) {
        throw new HeadScopeException(seen.path() + " and " + p.path() + " are both shard " + b.shard()
            + ": give each shard once.");
      }
      byIndex.put(b.shard().index(), p);
    }
    int n = a.shard().count();
    int absent = n - byIndex.size();
    if (absent > 0) {
      List<String> missing = new ArrayList<>();
      for (int k = 0; k < n && missing.size() < 10; k++) {
        if (!byIndex.containsKey(k)) {
          missing.add(k + "/" + n);
        }
      }
      throw new HeadScopeException("Shard" + (absent == 1 ? " " : "s ") + String.join(", ", missing)
          + (absent > missing.size() ? ", … (" + absent + " in all)" : "")
          + (absent == 1 ? " is" : " are") + " missing: merge needs all " + n + " parts.");
    }
    return List.copyOf(byIndex.values());
  }

  /** Which of the model files' hashes differ, for the message: {@code weights abc123… vs def456…}. */
  private static String differing(Map<String, String> a, Map<String, String> b) {
    List<String> out = new ArrayList<>();
    for (String k : new java.util.TreeSet<>(a.keySet())) {
      String x = a.get(k);
      String y = b.getOrDefault(k, "");
      if (!x.equals(y)) {
        out.add(k + " " + x.substring(0, Math.min(12, x.length())) + "… vs " + y.substring(0, Math.min(12, y.length()))
            + "…");
      }
    }
    return String.join(", ", out);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JDK has SHA-256
    }
  }
}
