package io.headscope.model.decoders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.checkpoint.ShardedCheckpoint;
import io.headscope.model.checkpoint.WeightMemory;
import io.headscope.model.core.HeadScopeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory a checkpoint needs, said before loading; the shard index's checks. */
class WeightMemoryTest {
  @TempDir Path dir;

  @Test
  void theNeedIsTheFloat32SizePlusThreeLargestTensorsWhateverTheStoredWidth() {
    Path folder = new TinyDecoder(DecoderFamiliesTest.llama(null), 3).writeTo(dir.resolve("llama"));
    List<Safetensors> shards = ShardedCheckpoint.open(folder.resolve(ShardedCheckpoint.INDEX));
    try {
      // by hand: embeddings 272 x 32 and lm_head 272 x 32; per layer q 32x32, k and v 16x32, o 32x32, two
      // norms of 32, gate and up 48x32, down 32x48; the final norm 32. Largest: 272 x 32.
      long perLayer = 32 * 32 + 2 * 16 * 32 + 32 * 32 + 2 * 32 + 3 * 48 * 32;
      long elements = 2L * 272 * 32 + 2 * perLayer + 32;
      assertThat(WeightMemory.need(shards)).isEqualTo(4 * elements + 3 * 4L * 272 * 32);
    } finally {
      shards.forEach(Safetensors::close);
    }
  }

  @Test
  void aModelTooLargeSaysWhatItNeedsInOneLine() {
    assertThatThrownBy(() -> WeightMemory.check("Llama-3.2-1B", 5_200_000_000L, 3_100_000_000L))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("Llama-3.2-1B needs about 5.2 GB")
        .hasMessageContaining("has 3.1 GB available")
        .hasMessageNotContaining("\n");
    assertThatCode(() -> WeightMemory.check("small", 1_000, 2_000)).doesNotThrowAnyException();
    assertThatCode(() -> WeightMemory.check("unknown", 1_000, -1)).doesNotThrowAnyException();
  }

  @Test
  void aChangedShardChangesTheModelsIdentity() throws Exception {
    Path folder = new TinyDecoder(DecoderFamiliesTest.llama(null), 3).writeTo(dir.resolve("id"));
    io.headscope.model.store.ModelFiles files = new io.headscope.model.repository.ModelRepository(dir.resolve("cache"))
        .folder(folder);
    assertThat(files.weights().getFileName().toString()).isEqualTo(ShardedCheckpoint.INDEX);
    String before = files.identity().weights();
    Path second = folder.resolve("model-00002-of-00002.safetensors");
    byte[] bytes = Files.readAllBytes(second);
    bytes[bytes.length - 1] ^= 1; // one bit of the last weight; the index is untouched
    Files.write(second, bytes);
    assertThat(files.identity().weights()).isNotEqualTo(before);
  }

  @Test
  void anIndexNamingAFileOutsideTheFolderIsRefused() throws Exception {
    Path index = Files.writeString(dir.resolve(ShardedCheckpoint.INDEX),
        "{\"weight_map\": {\"model.embed_tokens.weight\": \"../elsewhere/model.safetensors\"}}");
    assertThatThrownBy(() -> ShardedCheckpoint.open(index)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("a shard must be a .safetensors file beside the index");
  }

  @Test
  void anIndexPlacingATensorInTheWrongShardIsRefused() throws Exception {
    Path folder = new TinyDecoder(DecoderFamiliesTest.llama(null), 3).writeTo(dir.resolve("swapped"));
    Path index = folder.resolve(ShardedCheckpoint.INDEX);
    Files.writeString(index, Files.readString(index).replace("\"model.embed_tokens.weight\" : \"model-00001-of-00002",
        "\"model.embed_tokens.weight\" : \"model-00002-of-00002"));
    assertThatThrownBy(() -> ShardedCheckpoint.open(index)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("places tensor model.embed_tokens.weight in model-00002-of-00002.safetensors");
  }
}
