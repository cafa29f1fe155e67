package io.headscope.model.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.AttentionTrace;
import io.headscope.model.core.BertConfig;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.testing.FakeHub;
import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Downloads from a Hub stand-in on 127.0.0.1 that the test starts: real HTTP, real files, real loading. */
class HubDownloadTest {
  private static final String REPO = "test-org/tiny-bert";
  private static final String SPEC = "hf:" + REPO;

  @TempDir Path tmp;
  private FakeHub hub;
  private Path source;
  private Path cache;

  @BeforeEach
  void serveTinyModel() {
    source = tmp.resolve("source");
    TinyBert.create(2, 4, 11).withClassifier("neg", "pos").writeTo(source);
    cache = tmp.resolve("cache");
    hub = FakeHub.start().serve(REPO, "main", source);
  }

  @AfterEach
  void stop() {
    hub.close();
  }

  private ModelRepository online() {
    return new ModelRepository(cache, hub.url(), false);
  }

  private ModelRepository offline() {
    return new ModelRepository(cache, hub.url(), true);
  }

  private Path cached(String file) {
    return cache.resolve("hub/test-org/tiny-bert/main").resolve(file);
  }

  @Test
  void fullDownloadIsCachedVerifiedAndLoads() throws IOException {
    List<Double> fractions = new ArrayList<>();
    ModelFiles files = online().resolve(SPEC, (stage, f) -> fractions.add(f));

    assertThat(files.name()).isEqualTo(SPEC);
    for (String f : List.of("config.json", "model.safetensors", "tokenizer.json")) {
      assertThat(Files.readAllBytes(cached(f))).as(f).isEqualTo(Files.readAllBytes(source.resolve(f)));
    }
    assertThat(partFiles()).isEmpty();
    assertThat(fractions).isNotEmpty().allMatch(f -> f <= 1.0);
    assertThat(fractions.get(fractions.size() - 1)).isEqualTo(1.0);
    try (BertModel model = BertModel.load(files)) {
      AttentionTrace t = model.trace(model.encode("the cat sat", null));
      assertThat(t.attention()).hasDimensions(2, 4);
      assertThat(model.classLabels()).containsExactly("neg", "pos");
    }
  }

  /** The weights of a model of some megabytes, so that their download has many steps to report. */
  private long serveBigModel() throws IOException {
    Path big = tmp.resolve("big");
    TinyBert.create(new BertConfig(TinyBert.VOCAB.size(), 256, 2, 4, 1024, "gelu", 64, 2, 1e-12, List.of()), 14)
        .writeTo(big);
    hub.serve("test-org/big", "main", big);
    long size = Files.size(big.resolve("model.safetensors"));
    assertThat(size).isGreaterThan(5_000_000);
    return size;
  }

  /** Downloads test-org/big; returns each progress report of model.safetensors as {stage, fraction}. */
  private List<Object[]> weightsProgress() {
    List<Object[]> reports = new ArrayList<>();
    online().resolve("hf:test-org/big", (stage, f) -> {
      if (stage.startsWith("Downloading model.safetensors ")) {
        reports.add(new Object[] {stage, f});
      }
    });
    return reports;
  }

  /** The megabytes so far in a report such as "... (3.5 of 7.1 MB)". */
  private static double megabytesDone(String stage) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\(([0-9.]+) of [0-9.]+ MB\\)$").matcher(stage);
    assertThat(m.find()).as(stage).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void progressOfTheWeightsRisesInSmallStepsToTheirSizeAlsoAcrossAResumedConnection() throws IOException {
    long size = serveBigModel();
    hub.dropNextDownloads(1); // the first connection breaks off halfway; the second resumes it
    List<Object[]> reports = weightsProgress();

    List<Double> fractions = reports.stream().map(r -> (Double) r[1]).toList();
    List<Double> megabytes = reports.stream().map(r -> megabytesDone((String) r[0])).toList();
    assertThat(fractions).as("progress reports of model.safetensors").hasSizeGreaterThan(20)
        .allMatch(f -> f > 0 && f < 1).isSorted();
    assertThat(megabytes).isSorted();
    assertThat(fractions).as("reports on both sides of the break").anyMatch(f -> f < 0.5).anyMatch(f -> f > 0.5);
    for (int i = 1; i < fractions.size(); i++) {
      assertThat(fractions.get(i) - fractions.get(i - 1)).as("step %d", i).isLessThan(0.05);
    }
    // reports come every 1% of the file, so the last is within 1% (and one network read) of its size
    assertThat(fractions.get(fractions.size() - 1)).isGreaterThan(0.98);
    assertThat(megabytes.get(megabytes.size() - 1)).isGreaterThan(0.98 * size / 1e6 - 0.05);
    assertThat(Files.size(cache.resolve("hub/test-org/big/main/model.safetensors"))).isEqualTo(size);
  }

  @Test
  void theLastProgressReportOfTheWeightsSaysAllOfThemArrived() throws IOException {
    long size = serveBigModel();
    List<Object[]> reports = weightsProgress();
    Object[] last = reports.get(reports.size() - 1);
    String megabytes = String.format(Locale.ROOT, "%.1f", size / 1e6);
    assertThat((String) last[0]).endsWith("(" + megabytes + " of " + megabytes + " MB)");
    assertThat((Double) last[1]).isGreaterThanOrEqualTo(0.999);
  }

  @Test
  void secondRunUsesTheCacheWithoutAskingTheHub() {
    online().resolve(SPEC, ProgressListener.NONE);
    int before = hub.requests().size();
    ModelFiles again = online().resolve(SPEC, ProgressListener.NONE);
    assertThat(again.weights()).isEqualTo(cached("model.safetensors"));
    assertThat(hub.requests()).hasSize(before);
  }

  @Test
  void droppedConnectionIsResumedWithARangeRequest() throws IOException {
    hub.dropNextDownloads(1);
    online().resolve(SPEC, ProgressListener.NONE);

    long half = Files.size(source.resolve("model.safetensors")) / 2;
    assertThat(hub.requests()).anyMatch(r -> r.startsWith("GET /cdn/") && r.endsWith("bytes=" + half + "-"));
    assertThat(Files.readAllBytes(cached("model.safetensors")))
        .isEqualTo(Files.readAllBytes(source.resolve("model.safetensors")));
    assertThat(partFiles()).isEmpty();
  }

  @Test
  void theCacheListsFinishedDownloadsOnlyWithTheirRevision() throws IOException {
    assertThat(offline().cachedHubModels()).isEmpty();
    hub.dropNextDownloads(FileDownload.ATTEMPTS);
    assertThatThrownBy(() -> online().resolve(SPEC, ProgressListener.NONE)).isInstanceOf(HeadScopeException.class);
    assertThat(offline().cachedHubModels()).as("an interrupted download is not offered").isEmpty();

    online().resolve(SPEC, ProgressListener.NONE);
    hub.serve(REPO, "refs/pr/1", source);
    online().resolve(SPEC + "@refs/pr/1", ProgressListener.NONE);
    Files.createDirectories(cache.resolve("hub/someone/by-hand/main")); // not a download: nothing in it
    assertThat(offline().cachedHubModels()).containsExactly(SPEC, SPEC + "@refs/pr/1");
    // each is what loading it offline takes
    for (String spec : offline().cachedHubModels()) {
      assertThat(offline().resolve(spec, ProgressListener.NONE).name()).isEqualTo(spec);
    }
  }

  @Test
  void interruptedRunKeepsThePartAndTheNextRunResumesIt() throws IOException {
    hub.dropNextDownloads(FileDownload.ATTEMPTS);
    assertThatThrownBy(() -> online().resolve(SPEC, ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("model.safetensors")
        .hasMessageContaining("resumes");
    assertThat(cached("model.safetensors")).doesNotExist();
    List<Path> parts = partFiles();
    assertThat(parts).hasSize(1);
    long kept = Files.size(parts.get(0));
    assertThat(kept).isPositive();

    online().resolve(SPEC, ProgressListener.NONE);
    assertThat(hub.requests().get(hub.requests().size() - 1)).isNotNull();
    assertThat(hub.requests()).anyMatch(r -> r.startsWith("GET /cdn/") && r.endsWith("bytes=" + kept + "-"));
    assertThat(Files.readAllBytes(cached("model.safetensors")))
        .isEqualTo(Files.readAllBytes(source.resolve("model.safetensors")));
  }

  @Test
  void stalledServerIsRetriedAndReported() {
    System.setProperty("headscope.hubStallSeconds", "1");
    try {
      hub.stall(true);
      assertThatThrownBy(() -> online().resolve(SPEC, ProgressListener.NONE))
          .isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("no data arrived for 1 s");
      hub.stall(false);
      online().resolve(SPEC, ProgressListener.NONE);
      assertThat(cached("model.safetensors")).exists();
      assertThat(Thread.currentThread().isInterrupted()).isFalse();
    } finally {
      System.clearProperty("headscope.hubStallSeconds");
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"model.safetensors", "config.json", "tokenizer.json"})
  void corruptedDownloadIsRejectedAndNothingIsCached(String file) throws IOException {
    hub.corrupt(file);
    assertThatThrownBy(() -> online().resolve(SPEC, ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining(file)
        .hasMessageContaining("checksum")
        .hasMessageContaining("nothing was cached");
    assertThat(cached(file)).doesNotExist();
    assertThat(partFiles()).isEmpty();

    hub.corrupt(null); // the next try gets the good bytes
    online().resolve(SPEC, ProgressListener.NONE);
    assertThat(Files.readAllBytes(cached(file))).isEqualTo(Files.readAllBytes(source.resolve(file)));
  }

  @Test
  void offlineUsesTheCache() {
    online().resolve(SPEC, ProgressListener.NONE);
    int before = hub.requests().size();
    ModelFiles files = offline().resolve(SPEC, ProgressListener.NONE);
    assertThat(files.weights()).isEqualTo(cached("model.safetensors"));
    assertThat(hub.requests()).hasSize(before);
  }

  @Test
  void offlineWithoutCacheSaysWhatIsMissing() {
    assertThatThrownBy(() -> offline().resolve(SPEC, ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining(SPEC)
        .hasMessageContaining("not in the cache")
        .hasMessageContaining("offline")
        .hasMessageContaining("model.safetensors");
    assertThat(hub.requests()).isEmpty();
  }

  @Test
  void offlineSystemPropertyIsHonoured() {
    System.setProperty("headscope.offline", "true");
    try {
      ModelRepository fromSettings = new ModelRepository(cache);
      assertThat(fromSettings.isOffline()).isTrue();
      assertThatThrownBy(() -> fromSettings.resolve(SPEC, ProgressListener.NONE))
          .hasMessageContaining("not in the cache");
    } finally {
      System.clearProperty("headscope.offline");
    }
    assertThat(hub.requests()).isEmpty();
  }

  @Test
  void vocabOnlyRepoGetsAGeneratedTokenizer() throws IOException {
    Path vocabOnly = tmp.resolve("vocab-only");
    TinyBert.create(2, 4, 12).writeTo(vocabOnly);
    Files.delete(vocabOnly.resolve("tokenizer.json"));
    hub.serve("test-org/vocab-only", "v1", vocabOnly);

    ModelFiles files = online().resolve("hf:test-org/vocab-only@v1", ProgressListener.NONE);
    assertThat(cache.resolve("hub/test-org/vocab-only/v1/vocab.txt")).exists();
    try (BertModel model = BertModel.load(files)) {
      assertThat(model.encode("the cat", null).tokens()).containsExactly("[CLS]", "the", "cat", "[SEP]");
    }
  }

  @Test
  void pickleOnlyRepoIsRefusedWithoutDownloadingThePickle() throws IOException {
    Path pickle = tmp.resolve("pickle");
    TinyBert.create(2, 4, 13).writeTo(pickle);
    Files.move(pickle.resolve("model.safetensors"), pickle.resolve("pytorch_model.bin"));
    hub.serve("test-org/pickled", "main", pickle);

    assertThatThrownBy(() -> online().resolve("hf:test-org/pickled", ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("pytorch_model.bin")
        .hasMessageContaining("pickle");
    assertThat(hub.requests()).noneMatch(r -> r.startsWith("GET") && r.contains("pytorch_model.bin"));
    assertThat(hub.requests()).noneMatch(r -> r.startsWith("GET /cdn/"));
    try (Stream<Path> all = Files.walk(cache)) {
      assertThat(all.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("pytorch_model"));
    }
  }

  @Test
  void unknownRepoAndRevisionAreNamed() {
    assertThatThrownBy(() -> online().resolve("hf:test-org/no-such-model", ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("hf:test-org/no-such-model does not exist");
    assertThatThrownBy(() -> online().resolve(SPEC + "@v9", ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("no revision \"v9\"");
  }

  @Test
  void unreachableHubSaysSoAndSuggestsOffline() {
    hub.close();
    assertThatThrownBy(() -> online().resolve(SPEC, ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("Cannot reach 127.0.0.1")
        .hasMessageContaining("--offline");
  }

  @Test
  void plainHttpIsOnlyAllowedOnLoopback() {
    assertThatThrownBy(() -> new HubClient("http://example.com", cache, false))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("https://");
    assertThat(new HubClient("https://huggingface.co", cache, false).url(HubModelId.parse(SPEC), "config.json"))
        .hasToString("https://huggingface.co/test-org/tiny-bert/resolve/main/config.json");
  }

  @ParameterizedTest
  @ValueSource(strings = {"hf:../etc", "hf:a/b/c", "hf:org/..", "hf:org/name@../x", "hf:/name", "hf:org/na me",
      "hf:org/name@"})
  void badIdsAreRefusedBeforeAnyRequest(String spec) {
    assertThatThrownBy(() -> online().resolve(spec, ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("Hugging Face");
    assertThat(hub.requests()).isEmpty();
  }

  @Test
  void idsParseWithAndWithoutRevision() {
    assertThat(HubModelId.parse("hf:textattack/bert-base-uncased-MRPC"))
        .isEqualTo(new HubModelId("textattack", "bert-base-uncased-MRPC", "main"));
    assertThat(HubModelId.parse("hf:google-bert/bert-base-cased@a265f77").revision()).isEqualTo("a265f77");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"config.json", "tokenizer.json", "model.safetensors"})
  void fileWithoutAChecksumIsCheckedByItsFormatAndRejectedWhenTruncated(String file) throws IOException {
    hub.withoutEtags(true);
    hub.truncate(file); // served consistently as half the file: size checks cannot see it
    assertThatThrownBy(() -> online().resolve(SPEC, ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining(file)
        .hasMessageContaining("without a checksum")
        .hasMessageContaining("nothing was cached");
    assertThat(cached(file)).doesNotExist();
    assertThat(partFiles()).isEmpty();
  }

  @Test
  void intactFilesWithoutAChecksumAreCachedAndLoad() throws IOException {
    hub.withoutEtags(true);
    ModelFiles files = online().resolve(SPEC, ProgressListener.NONE);
    for (String f : List.of("config.json", "model.safetensors", "tokenizer.json")) {
      assertThat(Files.readAllBytes(cached(f))).as(f).isEqualTo(Files.readAllBytes(source.resolve(f)));
    }
    try (BertModel model = BertModel.load(files)) {
      assertThat(model.classLabels()).containsExactly("neg", "pos");
    }
  }

  @Test
  void aServerThatDripsBytesIsCutOffAtTheFilesDeadline() throws IOException {
    long size = Files.size(source.resolve("config.json"));
    assertThat(size).isGreaterThan(100); // at 150 ms a byte the whole file would take over 15 s
    System.setProperty("headscope.hubDeadlineSeconds", "2");
    try {
      hub.drip("config.json", 150); // never silent for the 60 s stall limit
      long t0 = System.nanoTime();
      HeadScopeException e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
          java.time.Duration.ofSeconds(12), () -> {
            try {
              online().resolve(SPEC, ProgressListener.NONE);
            } catch (HeadScopeException ex) {
              return ex;
            }
            throw new AssertionError("the dripping download finished");
          });
      double seconds = (System.nanoTime() - t0) / 1e9;
      assertThat(e).hasMessageContaining("config.json").hasMessageContaining("longer than 2 s")
          .hasMessageContaining("nothing was cached");
      assertThat(seconds).isBetween(1.9, 8.0);
      assertThat(cached("config.json")).doesNotExist();
      assertThat(partFiles()).isEmpty();
    } finally {
      System.clearProperty("headscope.hubDeadlineSeconds");
    }
  }

  @Test
  void aFileOfUnannouncedSizeMayTakeLongerThanTheFloorWhileItKeepsAnHonestRate() throws IOException {
    Path bigger = tmp.resolve("bigger");
    TinyBert.create(2, 32, 14).writeTo(bigger);
    hub.serve("test-org/bigger", "main", bigger);
    long size = Files.size(bigger.resolve("model.safetensors"));
    int rate = (int) (size / 3); // about 3 s in all, above the 100 kB/s the deadline asks for
    assertThat(rate).isGreaterThan(2 * (int) FileDownload.MIN_RATE_BYTES_PER_SECOND);
    System.setProperty("headscope.hubDeadlineSeconds", "1");
    try {
      hub.withoutEtags(true);
      hub.streamWithoutSize("model.safetensors", rate);
      ModelFiles files = online().resolve("hf:test-org/bigger", ProgressListener.NONE);
      assertThat(Files.readAllBytes(files.weights())).isEqualTo(Files.readAllBytes(bigger.resolve("model.safetensors")));
    } finally {
      System.clearProperty("headscope.hubDeadlineSeconds");
    }
  }

  @Test
  void aFileOfUnannouncedSizeThatDripsIsCutOff() throws IOException {
    System.setProperty("headscope.hubDeadlineSeconds", "1");
    try {
      hub.withoutEtags(true);
      hub.streamWithoutSize("model.safetensors", 2_000); // 2 kB/s: 50 times too slow
      assertThatThrownBy(() -> online().resolve(SPEC, ProgressListener.NONE))
          .isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("model.safetensors")
          .hasMessageContaining("unknown size");
      assertThat(cached("model.safetensors")).doesNotExist();
      assertThat(partFiles()).isEmpty();
    } finally {
      System.clearProperty("headscope.hubDeadlineSeconds");
    }
  }

  @Test
  void deadlineGrowsWithTheAdvertisedSize() {
    assertThat(FileDownload.deadlineSeconds(12_600)).isEqualTo(60); // the floor
    assertThat(FileDownload.deadlineSeconds(440_000_000)).isEqualTo(4400); // 440 MB at 100 kB/s
    assertThat(FileDownload.deadlineSeconds(-1)).isEqualTo(60);
  }

  @Test
  void aServerSendingMoreThanItAnnouncedIsCutOffAtTheAnnouncedSize() throws Exception {
    long size = Files.size(source.resolve("model.safetensors"));
    int extra = 256 << 20;
    hub.oversend("model.safetensors", extra);
    assertThatThrownBy(() -> online().resolve(SPEC, ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("model.safetensors")
        .hasMessageContaining("more")
        .hasMessageContaining(size + " bytes");
    long sent = -1;
    for (int i = 0; i < 50 && sent != hub.bytesSent("model.safetensors"); i++) {
      sent = hub.bytesSent("model.safetensors");
      Thread.sleep(100); // until the server notices the closed connection
    }
    assertThat(sent).isLessThan(size + (32 << 20)); // socket buffers, not the 256 MB
    assertThat(cached("model.safetensors")).doesNotExist();
    assertThat(partFiles()).isEmpty();
  }

  @Test
  void aFileLargerThanTheFreeSpaceIsRefusedBeforeDownloading() throws IOException {
    long petabyte = 1_000_000_000_000_000L;
    hub.advertise("model.safetensors", petabyte);
    double freeGb = Files.getFileStore(tmp).getUsableSpace() / 1e9;
    HeadScopeException e = org.junit.jupiter.api.Assertions.assertThrows(HeadScopeException.class,
        () -> online().resolve(SPEC, ProgressListener.NONE));
    assertThat(e).hasMessageContaining("model.safetensors").hasMessageContaining("1000000.0 GB")
        .hasMessageContaining("free");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("only ([0-9.]+) (KB|MB|GB) free").matcher(e.getMessage());
    assertThat(m.find()).as(e.getMessage()).isTrue();
    double reported = Double.parseDouble(m.group(1)) * switch (m.group(2)) {
      case "KB" -> 1e-6;
      case "MB" -> 1e-3;
      default -> 1.0;
    };
    assertThat(reported).isCloseTo(freeGb, org.assertj.core.data.Offset.offset(1.0));
    assertThat(hub.requests()).noneMatch(r -> r.startsWith("GET /cdn/"));
    assertThat(partFiles()).isEmpty();
  }

  @Test
  void smallFilesShowTheirProgressInKilobytes() throws IOException {
    List<String> stages = java.util.Collections.synchronizedList(new ArrayList<>());
    online().resolve(SPEC, (stage, f) -> stages.add(stage));
    long size = Files.size(source.resolve("config.json"));
    assertThat(size).isLessThan(1_000_000);
    String total = new java.math.BigDecimal(size).movePointLeft(3).setScale(1, java.math.RoundingMode.HALF_UP) + " KB)";
    assertThat(stages).anyMatch(s -> s.startsWith("Downloading config.json of " + SPEC) && s.endsWith(" of " + total));
    assertThat(stages).noneMatch(s -> s.contains("of 0.0 MB"));
  }

  @Test
  void truncatedCachedWeightsAreDownloadedAgainAndTheRunSaysSo() throws IOException {
    online().resolve(SPEC, ProgressListener.NONE);
    Path w = cached("model.safetensors");
    long size = Files.size(w);
    byte[] all = Files.readAllBytes(w);
    Files.write(w, java.util.Arrays.copyOf(all, all.length / 2));

    List<String> stages = java.util.Collections.synchronizedList(new ArrayList<>());
    ModelFiles files = online().resolve(SPEC, (stage, f) -> stages.add(stage));
    assertThat(stages).filteredOn(st -> st.contains("damaged")).containsExactly("The cached " + SPEC
        + " is damaged (model.safetensors is " + all.length / 2 + " bytes, expected " + size
        + "); downloading it again");
    assertThat(Files.readAllBytes(w)).isEqualTo(Files.readAllBytes(source.resolve("model.safetensors")));
    try (BertModel model = BertModel.load(files)) {
      assertThat(model.classLabels()).containsExactly("neg", "pos");
    }
  }

  @Test
  void deletedCachedConfigIsDownloadedAgainAndTheRunSaysSo() throws IOException {
    online().resolve(SPEC, ProgressListener.NONE);
    Files.delete(cached("config.json"));
    List<String> stages = java.util.Collections.synchronizedList(new ArrayList<>());
    online().resolve(SPEC, (stage, f) -> stages.add(stage));
    assertThat(stages).contains("The cached " + SPEC + " is damaged (config.json is missing); downloading it again");
    assertThat(Files.readAllBytes(cached("config.json"))).isEqualTo(Files.readAllBytes(source.resolve("config.json")));
    assertThat(hub.requests()).filteredOn(r -> r.startsWith("GET /cdn/")).hasSize(1); // the weights were not fetched again
  }

  @Test
  void aSameSizeChangeToACachedFileIsFoundByItsHashOnceItsMtimeMoved() throws IOException {
    online().resolve(SPEC, ProgressListener.NONE);
    Path t = cached("tokenizer.json");
    byte[] bytes = Files.readAllBytes(t);
    int i = new String(bytes, java.nio.charset.StandardCharsets.UTF_8).indexOf("\"the\"") + 1;
    bytes[i] = 'T'; // "the" becomes "The": still valid JSON, same size, another vocabulary
    java.nio.file.attribute.FileTime before = Files.getLastModifiedTime(t);
    Files.write(t, bytes);
    Files.setLastModifiedTime(t, java.nio.file.attribute.FileTime.fromMillis(before.toMillis() + 5_000));

    List<String> stages = java.util.Collections.synchronizedList(new ArrayList<>());
    online().resolve(SPEC, (stage, f) -> stages.add(stage));
    assertThat(stages).anyMatch(st -> st.contains("tokenizer.json does not match its SHA-256"));
    assertThat(Files.readAllBytes(t)).isEqualTo(Files.readAllBytes(source.resolve("tokenizer.json")));
  }

  @Test
  void aCacheWithoutManifestIsCheckedByFormatAndGivenOneWithoutAskingTheHub() throws IOException {
    online().resolve(SPEC, ProgressListener.NONE);
    Path manifest = cached(io.headscope.model.store.CacheManifest.NAME);
    assertThat(manifest).exists();
    Files.delete(manifest); // as an older HeadScope left it
    int before = hub.requests().size();

    online().resolve(SPEC, ProgressListener.NONE);
    assertThat(hub.requests()).hasSize(before);
    com.fasterxml.jackson.databind.JsonNode files = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(manifest.toFile()).get("files");
    assertThat(files.size()).isEqualTo(3);
    for (String f : List.of("config.json", "model.safetensors", "tokenizer.json")) {
      byte[] content = Files.readAllBytes(source.resolve(f));
      assertThat(files.get(f).get("size").asLong()).as(f).isEqualTo(content.length);
      assertThat(files.get(f).get("sha256").asText()).as(f).isEqualTo(sha256(content));
    }
  }

  @Test
  void aCacheWithoutManifestAndATruncatedWeightsFileIsRepaired() throws IOException {
    online().resolve(SPEC, ProgressListener.NONE);
    Files.delete(cached(io.headscope.model.store.CacheManifest.NAME));
    Path w = cached("model.safetensors");
    byte[] all = Files.readAllBytes(w);
    Files.write(w, java.util.Arrays.copyOf(all, all.length - 100));
    List<String> stages = java.util.Collections.synchronizedList(new ArrayList<>());
    online().resolve(SPEC, (stage, f) -> stages.add(stage));
    assertThat(stages).anyMatch(st -> st.contains("damaged (model.safetensors is not a valid safetensors file"));
    assertThat(Files.readAllBytes(w)).isEqualTo(all);
  }

  @Test
  void aCacheWithoutManifestAndWeightsLongerThanTheirHeaderSaysIsRepaired() throws IOException {
    online().resolve(SPEC, ProgressListener.NONE);
    Files.delete(cached(io.headscope.model.store.CacheManifest.NAME));
    Path w = cached("model.safetensors");
    byte[] all = Files.readAllBytes(w);
    Files.write(w, new byte[100], java.nio.file.StandardOpenOption.APPEND); // e.g. a copy onto an older, longer file
    List<String> stages = java.util.Collections.synchronizedList(new ArrayList<>());
    online().resolve(SPEC, (stage, f) -> stages.add(stage));
    assertThat(stages).contains("The cached " + SPEC + " is damaged (model.safetensors is " + (all.length + 100)
        + " bytes but its header describes " + all.length + "); downloading it again");
    assertThat(Files.readAllBytes(w)).isEqualTo(all);
  }

  @Test
  void aDamagedCacheOfflineSaysWhatIsDamagedAndToGoOnline() throws IOException {
    online().resolve(SPEC, ProgressListener.NONE);
    Files.write(cached("config.json"), new byte[] {'{'});
    int before = hub.requests().size();
    assertThatThrownBy(() -> offline().resolve(SPEC, ProgressListener.NONE))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("damaged (config.json is 1 bytes, expected")
        .hasMessageContaining("offline");
    assertThat(hub.requests()).hasSize(before);
  }

  private static String sha256(byte[] content) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(content));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void thePickleRefusalsAdviceIsAnIdTheParserAcceptsAndThatDownloads() throws IOException {
    Path pickle = tmp.resolve("pickle");
    TinyBert.create(2, 4, 13).writeTo(pickle);
    Path converted = tmp.resolve("converted");
    TinyBert.create(2, 4, 13).writeTo(converted);
    Files.move(pickle.resolve("model.safetensors"), pickle.resolve("pytorch_model.bin"));
    hub.serve("test-org/pickled", "main", pickle);
    hub.serve("test-org/pickled", "refs/pr/1", converted); // the Hub's safetensors-conversion pull request

    HeadScopeException refusal = org.junit.jupiter.api.Assertions.assertThrows(HeadScopeException.class,
        () -> online().resolve("hf:test-org/pickled", ProgressListener.NONE));
    java.util.regex.Matcher advice = java.util.regex.Pattern.compile("(hf:\\S+@refs/pr/)N").matcher(refusal.getMessage());
    assertThat(advice.find()).as(refusal.getMessage()).isTrue();

    String spec = advice.group(1) + "1"; // what the user types after reading the advice
    assertThat(HubModelId.parse(spec)).isEqualTo(new HubModelId("test-org", "pickled", "refs/pr/1"));
    ModelFiles files = online().resolve(spec, ProgressListener.NONE);
    assertThat(Files.readAllBytes(files.weights())).isEqualTo(Files.readAllBytes(converted.resolve("model.safetensors")));
    assertThat(files.weights().getParent().getParent()).isEqualTo(cache.resolve("hub/test-org/pickled"));
    try (BertModel model = BertModel.load(files)) {
      assertThat(model.encode("the cat", null).tokens()).containsExactly("[CLS]", "the", "cat", "[SEP]");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"hf:org/name@refs/pr/x", "hf:org/name@refs/heads/main", "hf:org/name@refs/pr/../1",
      "hf:org/name@refs/pr/01"})
  void onlyPullRequestRefsMayHaveSlashesInTheRevision(String spec) {
    assertThatThrownBy(() -> HubModelId.parse(spec)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("Hugging Face");
  }

  private List<Path> partFiles() throws IOException {
    if (!Files.exists(cache)) {
      return List.of();
    }
    try (Stream<Path> all = Files.walk(cache)) {
      return all.filter(p -> p.getFileName().toString().endsWith(".part")).toList();
    }
  }
}
