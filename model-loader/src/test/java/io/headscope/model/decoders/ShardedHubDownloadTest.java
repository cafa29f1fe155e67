package io.headscope.model.decoders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.CacheManifest;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.FakeHub;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A large model as the hub stores it: {@code model.safetensors.index.json} and the shards it names, downloaded from
 * a hub stand-in on 127.0.0.1 (real HTTP, the shards' SHA-256 checked as the hub's LFS files are), cached, and
 * loaded to the same maps as the folder it was served from.
 */
class ShardedHubDownloadTest {
  private static final String REPO = "test-org/tiny-llama-sharded";
  private static final String SPEC = "hf:" + REPO;
  private static final List<String> SHARDS = List.of("model-00001-of-00002.safetensors",
      "model-00002-of-00002.safetensors");

  @TempDir Path tmp;
  private FakeHub hub;
  private Path source;
  private Path cache;

  @BeforeEach
  void serveShardedLlama() {
    source = new TinyDecoder(DecoderFamiliesTest.llama(null), 91).writeTo(tmp.resolve("source"));
    cache = tmp.resolve("cache");
    hub = FakeHub.start().serve(REPO, "main", source);
  }

  @AfterEach
  void stop() {
    hub.close();
  }

  private Path cached(String file) {
    return cache.resolve("hub/test-org/tiny-llama-sharded/main").resolve(file);
  }

  @Test
  void theIndexAndEveryShardAreDownloadedListedInTheManifestAndLoadToTheSourcesMaps() throws IOException {
    assertThat(SHARDS).allMatch(s -> Files.isRegularFile(source.resolve(s)));
    assertThat(source.resolve("model.safetensors")).doesNotExist();
    List<String> stages = new ArrayList<>();
    ModelFiles files = new ModelRepository(cache, hub.url(), false).resolve(SPEC, (stage, f) -> stages.add(stage));

    assertThat(files.weights().getFileName().toString()).isEqualTo("model.safetensors.index.json");
    for (String f : List.of("config.json", "tokenizer.json", "model.safetensors.index.json", SHARDS.get(0),
        SHARDS.get(1))) {
      assertThat(Files.readAllBytes(cached(f))).as(f).isEqualTo(Files.readAllBytes(source.resolve(f)));
    }
    assertThat(stages).contains("Downloading shard 1 of 2 (" + SHARDS.get(0) + ")",
        "Downloading shard 2 of 2 (" + SHARDS.get(1) + ")");
    String manifest = Files.readString(cached(CacheManifest.NAME));
    assertThat(manifest).contains(SHARDS.get(0), SHARDS.get(1), "model.safetensors.index.json");

    String text = "the cat sat on the mat";
    try (BertModel fromHub = BertModel.load(files);
        BertModel fromFolder = BertModel.load(new ModelRepository(tmp.resolve("other-cache")).folder(source))) {
      AttentionTrace a = fromHub.trace(fromHub.encode(text, null));
      AttentionTrace b = fromFolder.trace(fromFolder.encode(text, null));
      assertThat(a.encoding().ids()).isEqualTo(b.encoding().ids());
      assertThat(a.attention()).isDeepEqualTo(b.attention()); // the same bytes, the same engine: the same bits
    }
    // later runs need no network: the hub is gone and the cache answers offline
    hub.close();
    ModelFiles again = new ModelRepository(cache, hub.url(), true).resolve(SPEC, (stage, f) -> { });
    assertThat(again.weights()).isEqualTo(files.weights());
    assertThat(new ModelRepository(cache, hub.url(), true).cachedHubModels()).contains(SPEC);
  }

  @Test
  void aDamagedShardIsFoundAndDownloadedAgainAndOfflineSaysSo() throws IOException {
    new ModelRepository(cache, hub.url(), false).resolve(SPEC, (stage, f) -> { });
    byte[] bytes = Files.readAllBytes(cached(SHARDS.get(1)));
    bytes[bytes.length - 1] ^= 1;
    Files.write(cached(SHARDS.get(1)), bytes);
    Files.setLastModifiedTime(cached(SHARDS.get(1)), java.nio.file.attribute.FileTime.fromMillis(0));

    assertThatThrownBy(() -> new ModelRepository(cache, hub.url(), true).resolve(SPEC, (stage, f) -> { }))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("damaged")
        .hasMessageContaining(SHARDS.get(1));
    new ModelRepository(cache, hub.url(), false).resolve(SPEC, (stage, f) -> { });
    assertThat(Files.readAllBytes(cached(SHARDS.get(1)))).isEqualTo(Files.readAllBytes(source.resolve(SHARDS.get(1))));
  }

  @Test
  void aShardTheRepoLacksIsOneLineNamingItAndTheNextAttemptFetchesOnlyTheRest() throws IOException {
    Path partial = tmp.resolve("partial");
    Files.createDirectories(partial);
    try (Stream<Path> files = Files.list(source)) {
      for (Path p : files.toList()) {
        if (!p.getFileName().toString().equals(SHARDS.get(1))) {
          Files.copy(p, partial.resolve(p.getFileName()));
        }
      }
    }
    hub.serve("test-org/partial", "main", partial);
    assertThatThrownBy(() -> new ModelRepository(cache, hub.url(), false).resolve("hf:test-org/partial",
        (stage, f) -> { }))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("names the shard " + SHARDS.get(1) + ", which the repo does not have")
        .hasMessageNotContaining("\n");
    Path folder = cache.resolve("hub/test-org/partial/main");
    assertThat(folder.resolve(SHARDS.get(0))).exists(); // kept: verified on arrival
    assertThat(folder.resolve(CacheManifest.NAME)).doesNotExist(); // the folder is not complete

    Files.copy(source.resolve(SHARDS.get(1)), partial.resolve(SHARDS.get(1)));
    hub.serve("test-org/partial", "main", partial);
    List<String> stages = new ArrayList<>();
    new ModelRepository(cache, hub.url(), false).resolve("hf:test-org/partial", (stage, f) -> stages.add(stage));
    assertThat(stages).noneMatch(s -> s.contains(SHARDS.get(0))).anyMatch(s -> s.contains(SHARDS.get(1)));
    assertThat(folder.resolve(CacheManifest.NAME)).exists();
  }

  @Test
  void anIndexThatNamesAShardOutsideItsFolderIsRefusedAndNothingIsWrittenThere() throws IOException {
    Path evil = tmp.resolve("evil");
    Files.createDirectories(evil);
    Files.copy(source.resolve("config.json"), evil.resolve("config.json"));
    Files.copy(source.resolve("tokenizer.json"), evil.resolve("tokenizer.json"));
    Files.writeString(evil.resolve("model.safetensors.index.json"),
        "{\"metadata\": {}, \"weight_map\": {\"model.embed_tokens.weight\": \"../../escaped.safetensors\"}}");
    hub.serve("test-org/evil", "main", evil);
    assertThatThrownBy(() -> new ModelRepository(cache, hub.url(), false).resolve("hf:test-org/evil", (stage, f) -> { }))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("names the shard \"../../escaped.safetensors\"");
    try (Stream<Path> all = Files.walk(tmp)) {
      assertThat(all.filter(p -> p.getFileName().toString().equals("escaped.safetensors")).toList()).isEmpty();
    }
  }
}
