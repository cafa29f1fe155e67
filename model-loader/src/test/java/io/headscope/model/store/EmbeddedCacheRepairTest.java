package io.headscope.model.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged cache of the embedded model is rebuilt, and says so, instead of reporting "Ready" over a
 * broken folder or failing forever. The real conversion (about 10 s) is done once up front; each
 * test damages its own copy.
 */
@Tag("slow") // about 70 s (eight real conversions in child JVMs): ./headscope test slow
class EmbeddedCacheRepairTest {
  private static final String MODEL = "bert-base-uncased";
  private static final List<String> FILES =
      List.of("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt");

  @TempDir static Path shared;
  private static Path pristine;
  @TempDir Path cache;

  @BeforeAll
  static void convertOnce() {
    new ModelRepository(shared).resolve(MODEL, ProgressListener.NONE);
    pristine = shared.resolve("models-v1").resolve(MODEL);
  }

  private Path copyOfPristine() throws IOException {
    Path dir = cache.resolve("models-v1").resolve(MODEL);
    Files.createDirectories(dir);
    try (Stream<Path> files = Files.list(pristine)) {
      for (Path f : files.toList()) {
        Files.copy(f, dir.resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
    return dir;
  }

  private List<String> resolveRecording() {
    List<String> stages = Collections.synchronizedList(new ArrayList<>());
    new ModelRepository(cache).resolve(MODEL, (stage, f) -> stages.add(stage));
    return stages;
  }

  private static void assertSameAsPristine(Path dir) throws IOException {
    for (String f : FILES) { // a rebuild is byte-for-byte the first conversion
      assertThat(Files.readAllBytes(dir.resolve(f))).as(f).isEqualTo(Files.readAllBytes(pristine.resolve(f)));
    }
  }

  @Test
  void deletedConfigIsRebuiltAndTheRunSaysSo() throws IOException {
    Path dir = copyOfPristine();
    Files.delete(dir.resolve("config.json"));
    List<String> stages = resolveRecording();
    assertThat(stages.get(0)).isEqualTo("The cached " + MODEL + " is damaged (config.json is missing); converting it again");
    assertThat(stages).endsWith("Ready");
    assertSameAsPristine(dir);
    try (BertModel m = BertModel.load(new ModelRepository(cache).resolve(MODEL, ProgressListener.NONE))) {
      assertThat(m.config().numHiddenLayers()).isEqualTo(12);
    }
  }

  @Test
  void truncatedWeightsAreRebuiltAndTheRunSaysSo() throws IOException {
    Path dir = copyOfPristine();
    Path w = dir.resolve("model.safetensors");
    long size = Files.size(w);
    try (var ch = java.nio.channels.FileChannel.open(w, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(size / 2);
    }
    List<String> stages = resolveRecording();
    assertThat(stages.get(0)).isEqualTo("The cached " + MODEL + " is damaged (model.safetensors is " + size / 2
        + " bytes, expected " + size + "); converting it again");
    assertSameAsPristine(dir);
    assertThat(resolveRecording()).as("the repaired cache is used as it is").isEmpty();
  }

  @Test
  void aCacheFolderWithoutAManifestIsConvertedAgainNotAdopted() throws Exception {
    // only the cache writes the cache, and its manifest comes last: a folder without one was written by
    // something else (an older HeadScope, a copy, a finetune --out aimed at it) and cannot be trusted
    Path dir = copyOfPristine();
    Files.delete(dir.resolve(CacheManifest.NAME));
    List<String> stages = resolveRecording();
    assertThat(stages.get(0)).isEqualTo("The cached " + MODEL + " is damaged (" + CacheManifest.NAME
        + " is missing (the folder was not written by the cache)); converting it again");
    assertSameAsPristine(dir);
    JsonNode files = new ObjectMapper().readTree(dir.resolve(CacheManifest.NAME).toFile()).get("files");
    assertThat(files.size()).isEqualTo(FILES.size());
  }

  @Test
  void aFineTunedFolderPutInTheCachesPlaceIsReplacedByTheEmbeddedModel() throws Exception {
    // what `finetune --out ~/.cache/headscope/models-v1/bert-base-uncased --force` left before it was refused:
    // a sound model folder of another model, without the cache's manifest
    Path dir = copyOfPristine();
    io.headscope.model.store.SafeFiles.deleteTree(dir);
    io.headscope.model.testing.TinyBert.create(2, 2, 3).withClassifier("neg", "pos").writeTo(dir);
    List<String> stages = resolveRecording();
    assertThat(stages.get(0)).contains("converting it again");
    assertSameAsPristine(dir);
  }

  @Test
  void cacheFromBeforeManifestsWithTruncatedWeightsIsRebuilt() throws IOException {
    Path dir = copyOfPristine();
    Files.delete(dir.resolve(CacheManifest.NAME));
    Path w = dir.resolve("model.safetensors");
    try (var ch = java.nio.channels.FileChannel.open(w, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(Files.size(w) - 4096);
    }
    List<String> stages = resolveRecording();
    // without a manifest the folder is not looked into: converted again whatever its files hold
    assertThat(stages.get(0)).isEqualTo("The cached " + MODEL + " is damaged (" + CacheManifest.NAME
        + " is missing (the folder was not written by the cache)); converting it again");
    assertSameAsPristine(dir);
  }

  @Test
  void sizesAreCheckedAtEveryStartButHashesOnlyWhenTheMtimeMoved() throws IOException {
    Path dir = copyOfPristine();
    assertThat(resolveRecording()).isEmpty(); // the copy's times may be coarser: hashed once, recorded
    Path config = dir.resolve("config.json");
    var mtime = Files.getLastModifiedTime(config);
    String text = Files.readString(config);
    String changed = text.replace("\"num_hidden_layers\" : 12", "\"num_hidden_layers\" : 11");
    assertThat(changed).isNotEqualTo(text).hasSameSizeAs(text);
    Files.writeString(config, changed);
    Files.setLastModifiedTime(config, mtime); // same size, same mtime: taken as it is, unhashed
    assertThat(resolveRecording()).isEmpty();

    Files.setLastModifiedTime(config, java.nio.file.attribute.FileTime.fromMillis(mtime.toMillis() + 5_000));
    List<String> stages = resolveRecording(); // the mtime moved: hashed, found changed, rebuilt
    assertThat(stages.get(0)).isEqualTo("The cached " + MODEL
        + " is damaged (config.json does not match its SHA-256 (changed since it was cached)); converting it again");
    assertSameAsPristine(dir);
  }

  @Test
  void aConversionKilledBySignalLeavesNoModelAndTheNextRunClearsItsLeftovers() throws Exception {
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process p = new ProcessBuilder(javaBin, "-Xmx2g", "-cp", cp, EmbeddedCacheRepairTest.class.getName(),
        cache.toString()).redirectErrorStream(true).start();
    StringBuilder seen = new StringBuilder();
    try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
        java.nio.charset.StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        seen.append(line).append('\n');
        if (line.startsWith("stage Reading TensorFlow variables")) {
          p.destroy(); // SIGTERM, as kill or a closing terminal sends
          break;
        }
      }
    }
    assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as(seen.toString()).isTrue();
    assertThat(p.exitValue()).as(seen.toString()).isEqualTo(128 + 15);

    Path models = cache.resolve("models-v1");
    assertThat(models.resolve(MODEL)).as("a killed conversion publishes nothing").doesNotExist();
    List<Path> leftovers;
    try (Stream<Path> all = Files.list(models)) {
      leftovers = all.toList();
    }
    assertThat(leftovers).as("the killed run's work folder").hasSize(1);
    // the next start, right away: the folder names its writer, which is gone, so it goes now (it used to
    // stay until it was half an hour old, and a successful start left 421 MB behind)

    resolveRecording();
    try (Stream<Path> all = Files.list(models)) {
      assertThat(all.map(x -> x.getFileName().toString())).containsExactly(MODEL);
    }
    assertSameAsPristine(models.resolve(MODEL));
  }

  @Test
  void aConversionInAnotherJvmIsByteForByteTheSame() throws Exception {
    // Each JVM iterates Map.of in its own order; the converted files must not depend on it.
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process p = new ProcessBuilder(javaBin, "-Xmx2g", "-cp", cp, EmbeddedCacheRepairTest.class.getName(),
        cache.toString()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    assertSameAsPristine(cache.resolve("models-v1").resolve(MODEL));
  }

  /** The child of the JVM tests: converts into the cache {@code args[0]}, printing each stage. */
  public static void main(String[] args) {
    new ModelRepository(Path.of(args[0])).resolve(MODEL, (stage, f) -> {
      System.out.println("stage " + stage);
      System.out.flush();
    });
  }

  private static String sha256(Path p) throws Exception {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    try (InputStream in = Files.newInputStream(p)) {
      d.update(in.readAllBytes());
    }
    return HexFormat.of().formatHex(d.digest());
  }
}
