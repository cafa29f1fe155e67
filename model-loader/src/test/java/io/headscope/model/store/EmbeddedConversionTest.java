package io.headscope.model.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.core.BertConfig;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The first start converts Google's checkpoint into a Hugging Face folder once; later starts reuse it. */
@Tag("full-model")
class EmbeddedConversionTest {
  @TempDir Path cache;

  @Test
  void convertsTheEmbeddedCheckpointOnceIntoHuggingFaceNames() throws Exception {
    ModelRepository repo = new ModelRepository(cache);
    ModelFiles files = repo.resolve("bert-base-uncased", ProgressListener.NONE);
    BertConfig config = BertConfig.read(files.config());
    assertThat(config.numHiddenLayers()).isEqualTo(12);
    assertThat(config.vocabSize()).isEqualTo(30522);
    assertThat(config.hiddenAct()).isEqualTo("gelu");
    try (Safetensors st = Safetensors.open(files.weights())) {
      long floats = st.tensors().values().stream().mapToLong(Safetensors.TensorInfo::elementCount).sum();
      assertThat(floats).isEqualTo(110_104_890L); // every float of the TensorFlow checkpoint (METHODS.md)
      assertThat(st.tensors()).containsKeys("bert.encoder.layer.11.attention.self.query.weight",
          "cls.predictions.transform.dense.weight", "cls.predictions.bias", "bert.pooler.dense.weight");
      assertThat(st.tensors().get("bert.encoder.layer.0.intermediate.dense.weight").shape())
          .containsExactly(3072, 768); // transposed from TensorFlow's [768, 3072] kernel
    }
    try (var leftovers = Files.list(cache.resolve("models-v1"))) {
      assertThat(leftovers.map(p -> p.getFileName().toString())).containsExactly("bert-base-uncased");
    }
    long written = Files.getLastModifiedTime(files.weights()).toMillis();
    ModelFiles again = repo.resolve("bert-base-uncased", ProgressListener.NONE);
    assertThat(again).isEqualTo(files);
    assertThat(Files.getLastModifiedTime(again.weights()).toMillis()).isEqualTo(written);
  }
}
