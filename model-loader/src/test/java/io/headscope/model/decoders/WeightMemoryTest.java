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

  /**
   * TinyLlama's shape (22 layers, 32 query and 4 key/value heads of 64, hidden 2,048, MLP 5,632) at 2,048
   * tokens, counted by hand: every map kept is 704 maps of 2,048^2 floats (11.8 GB, the figure), held
   * twice while the traces are built; a trace of summaries holds 22 layers of 2,048 x (32 + 4) x 64 query and
   * key floats (0.42 GB), four numbers per row and a 128^2 thumbnail per head. A 16 GB machine is refused the
   * first and told the second.
   */
  @Test
  void aTraceOfEveryMapOfA1bModelAt2048TokensIsRefusedAndTheSummariesNamed() throws Exception {
    Path config = dir.resolve("config.json");
    Files.writeString(config, "{\"model_type\": \"llama\", \"vocab_size\": 32000, \"hidden_size\": 2048, "
        + "\"intermediate_size\": 5632, \"num_hidden_layers\": 22, \"num_attention_heads\": 32, "
        + "\"num_key_value_heads\": 4, \"max_position_embeddings\": 2048, \"rms_norm_eps\": 1e-05}");
    io.headscope.model.core.BertConfig c = io.headscope.model.core.BertConfig.read(config);
    long maps = 704L * 2048 * 2048 * 4;
    assertThat(maps).isEqualTo(11_811_160_064L);
    long common = 4L * (704 * 2048 + 2048 * 2048); // value norms, hidden states
    WeightMemory.TraceNeed full = WeightMemory.traceNeed(c, 1, 2048, true, 128);
    assertThat(full.javaBytes()).isEqualTo(2 * maps + common);
    WeightMemory.TraceNeed kept = WeightMemory.traceNeed(c, 1, 2048, false, 128);
    long queriesKeys = 22L * 2048 * 36 * 64 * 4;
    assertThat(queriesKeys).isEqualTo(415_236_096L);
    assertThat(kept.javaBytes()).isEqualTo(queriesKeys + 4L * 704 * (4 * 2048 + 128 * 128) + common);
    // one layer at a time: scores and pattern, 6 (T, H dh) arrays, the MLP's 4 (T, f), four summarised heads' temporaries
    long layer = 4L * (2 * 32 * 2048 * 2048 + 6L * 2048 * 2048 + 4L * 2048 * 5632);
    assertThat(full.nativeBytes()).isEqualTo(layer);
    assertThat(kept.nativeBytes()).isEqualTo(layer + 4L * 16 * 2048 * 2048);
    assertThatThrownBy(() -> WeightMemory.checkTrace("TinyLlama", 2048, full, kept, 16_000_000_000L, 64_000_000_000L))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("TinyLlama at 2048 tokens needs about 25.0 GB")
        .hasMessageContaining("has 16.0 GB available")
        .hasMessageContaining("a trace of summaries (the maps recomputed a head at a time) needs about 2.1 GB")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> WeightMemory.checkTrace("TinyLlama", 2048, full, kept, -1, 4_000_000_000L))
        .hasMessageContaining("the Java heap holds at most 4.0 GB");
    assertThatCode(() -> WeightMemory.checkTrace("TinyLlama", 2048, kept, null, 16_000_000_000L, 4_000_000_000L))
        .doesNotThrowAnyException();
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
