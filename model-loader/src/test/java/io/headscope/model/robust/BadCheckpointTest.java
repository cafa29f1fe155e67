package io.headscope.model.robust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.checkpoint.FloatTensor;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.RawSafetensors;
import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Broken checkpoints: each fails with one message that names the file and the problem. */
class BadCheckpointTest {
  @TempDir Path tmp;
  private Path dir;
  private ModelRepository repo;

  @BeforeEach
  void writeGoodModel() {
    dir = tmp.resolve("model");
    TinyBert.create(2, 4, 21).writeTo(dir);
    repo = new ModelRepository(tmp.resolve("cache"));
  }

  private HeadScopeException loadFails() {
    try {
      BertModel.load(repo.folder(dir)).close();
    } catch (HeadScopeException e) {
      assertThat(e.getMessage()).doesNotContain("\n").isNotBlank();
      return e;
    }
    throw new AssertionError("the broken model loaded");
  }

  @Test
  void missingConfig() throws IOException {
    Files.delete(dir.resolve("config.json"));
    assertThat(loadFails()).hasMessageContaining(dir.toString()).hasMessageContaining("no config.json");
  }

  @Test
  void missingWeights() throws IOException {
    Files.delete(dir.resolve("model.safetensors"));
    assertThat(loadFails()).hasMessageContaining(dir.toString()).hasMessageContaining("no model.safetensors");
  }

  @Test
  void missingTokenizerAndVocab() throws IOException {
    Files.delete(dir.resolve("tokenizer.json"));
    Files.delete(dir.resolve("vocab.txt"));
    assertThat(loadFails()).hasMessageContaining(dir.toString()).hasMessageContaining("has no tokenizer: no tokenizer.json, vocab.json + merges.txt or vocab.txt");
  }

  @Test
  void missingFolder() {
    assertThatThrownBy(() -> repo.resolve(tmp.resolve("nowhere").toString(), (s, f) -> {}))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("nowhere")
        .hasMessageContaining("neither an embedded model");
  }

  @Test
  void truncatedSafetensors() throws IOException {
    Path w = dir.resolve("model.safetensors");
    byte[] all = Files.readAllBytes(w);
    Files.write(w, Arrays.copyOf(all, all.length / 2));
    assertThat(loadFails()).hasMessageContaining(w.toString()).hasMessageContaining("truncated");
  }

  @Test
  void safetensorsCutInsideTheHeader() throws IOException {
    Path w = dir.resolve("model.safetensors");
    Files.write(w, Arrays.copyOf(Files.readAllBytes(w), 100));
    assertThat(loadFails()).hasMessageContaining(w.toString()).hasMessageContaining("not a valid safetensors file");
  }

  @Test
  void garbageInsteadOfSafetensors() throws IOException {
    Path w = dir.resolve("model.safetensors");
    byte[] junk = new byte[4096];
    new java.util.Random(1).nextBytes(junk);
    Files.write(w, junk);
    assertThat(loadFails()).hasMessageContaining(w.toString()).hasMessageContaining("not a valid safetensors file");
  }

  @Test
  void headerThatIsNotJson() throws IOException {
    Path w = dir.resolve("model.safetensors");
    byte[] all = Files.readAllBytes(w);
    all[8] = '#'; // the header's opening brace
    Files.write(w, all);
    assertThat(loadFails()).hasMessageContaining(w.toString()).hasMessageContaining("header is not valid JSON");
  }

  @Test
  void tensorOfTheWrongShape() throws IOException {
    Path w = dir.resolve("model.safetensors");
    List<FloatTensor> tensors = new ArrayList<>();
    try (Safetensors st = Safetensors.open(w)) {
      for (String name : st.tensors().keySet()) {
        tensors.add(st.readFloat(name));
      }
    }
    String victim = "bert.encoder.layer.1.attention.self.key.weight";
    tensors.replaceAll(t -> t.name().equals(victim) ? new FloatTensor(victim, new long[] {16, 15}, new float[240]) : t);
    Files.delete(w);
    Safetensors.write(w, tensors, Map.of());
    assertThat(loadFails()).hasMessageContaining(w.toString())
        .hasMessageContaining("encoder.layer.1.attention.self.key.weight")
        .hasMessageContaining("(16, 15)")
        .hasMessageContaining("(16, 16)");
  }

  @Test
  void missingTensor() throws IOException {
    Path w = dir.resolve("model.safetensors");
    List<FloatTensor> tensors = new ArrayList<>();
    try (Safetensors st = Safetensors.open(w)) {
      for (String name : st.tensors().keySet()) {
        if (!name.contains("layer.0.output.LayerNorm.bias")) {
          tensors.add(st.readFloat(name));
        }
      }
    }
    Files.delete(w);
    Safetensors.write(w, tensors, Map.of());
    assertThat(loadFails()).hasMessageContaining(w.toString()).hasMessageContaining("no tensor encoder.layer.0.output.LayerNorm.bias");
  }

  @Test
  void configMissingAKey() throws IOException {
    editConfig(c -> c.remove("hidden_size"));
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString()).hasMessageContaining("\"hidden_size\"");
  }

  @Test
  void configWithHiddenSizeNotDivisibleByHeads() throws IOException {
    editConfig(c -> c.put("hidden_size", 18));
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString())
        .hasMessageContaining("hidden_size 18 is not a multiple of num_attention_heads 4");
  }

  @Test
  void configWithNegativeLayers() throws IOException {
    editConfig(c -> c.put("num_hidden_layers", -2));
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString())
        .hasMessageContaining("num_hidden_layers must be positive, got -2");
  }

  @Test
  void configWithZeroHeads() throws IOException {
    editConfig(c -> c.put("num_attention_heads", 0));
    assertThat(loadFails()).hasMessageContaining("num_attention_heads must be positive");
  }

  @Test
  void configWithAStringWhereANumberBelongs() throws IOException {
    editConfig(c -> c.put("num_hidden_layers", "twelve"));
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString())
        .hasMessageContaining("\"num_hidden_layers\"");
  }

  @Test
  void configThatIsNotJson() throws IOException {
    Files.writeString(dir.resolve("config.json"), "{ \"hidden_size\": 16,");
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString()).hasMessageContaining("not valid JSON");
  }

  @Test
  void configOfAnArchitectureHeadScopeDoesNotRead() throws IOException {
    editConfig(c -> c.put("model_type", "mamba")); // not t5 since issue 41: an encoder-decoder HeadScope reads
    assertThat(loadFails()).hasMessageContaining("model_type is \"mamba\"").hasMessageContaining("gpt2");
  }

  @Test
  void aBertCheckpointUnderAnotherFamilysConfigNamesTheWeightItLacks() throws IOException {
    editConfig(c -> c.put("model_type", "distilbert").put("dim", 16).put("n_layers", 2).put("n_heads", 4)
        .put("hidden_dim", 32));
    assertThat(loadFails()).hasMessageContaining("no tensor transformer.layer.1.output_layer_norm.bias");
  }

  @Test
  void configWithUnknownActivation() throws IOException {
    editConfig(c -> c.put("hidden_act", "swish"));
    assertThat(loadFails()).hasMessageContaining("hidden_act \"swish\" is not supported");
  }

  @Test
  void configMoreLayersThanTheWeights() throws IOException {
    editConfig(c -> c.put("num_hidden_layers", 3));
    assertThat(loadFails()).hasMessageContaining("model.safetensors").hasMessageContaining("no tensor encoder.layer.2.");
  }

  @Test
  void tokenizerThatIsNotJson() throws IOException {
    Files.writeString(dir.resolve("tokenizer.json"), "not json");
    assertThat(loadFails()).hasMessageContaining(dir.resolve("tokenizer.json").toString()).hasMessageContaining("not valid JSON");
  }

  @Test
  void pickleOnlyIsRefusedWithoutOpeningIt() throws Exception {
    Files.delete(dir.resolve("model.safetensors"));
    // A named pipe: opening it for reading would block until a writer comes, so any code that
    // opened pytorch_model.bin would hang here instead of answering at once.
    Path pickle = dir.resolve("pytorch_model.bin");
    Process mkfifo = new ProcessBuilder("mkfifo", pickle.toString()).start();
    assertThat(mkfifo.waitFor()).isZero();
    HeadScopeException e = assertTimeoutPreemptively(Duration.ofSeconds(20), this::loadFails);
    assertThat(e).hasMessageContaining(dir.toString()).hasMessageContaining("pytorch_model.bin")
        .hasMessageContaining("pickle");
  }

  @Test
  void aFailedLoadLeavesTheLoadedModelUsable() throws IOException {
    try (BertModel good = BertModel.load(repo.folder(dir))) {
      Path broken = tmp.resolve("broken");
      TinyBert.create(2, 4, 22).writeTo(broken);
      Files.write(broken.resolve("model.safetensors"), new byte[] {1, 2, 3});
      assertThatThrownBy(() -> BertModel.load(repo.folder(broken))).isInstanceOf(HeadScopeException.class);
      Maps.assertRowsAreDistributions(good.trace(good.encode("the cat sat", null)), 1e-5);
    }
  }

  @Test
  void nanWeightIsRefusedNamingTheFileAndTensor() {
    TinyBert.create(2, 4, 21).edit("encoder.layer.1.attention.self.value.weight", d -> d[7] = Float.NaN)
        .writeTo(dir);
    assertThat(loadFails()).hasMessageContaining(dir.resolve("model.safetensors").toString())
        .hasMessageContaining("bert.encoder.layer.1.attention.self.value.weight")
        .hasMessageContaining("NaN at element 7");
  }

  @Test
  void infiniteWeightIsRefusedNamingTheFileAndTensor() {
    TinyBert.create(2, 4, 21).edit("embeddings.LayerNorm.bias", d -> d[15] = Float.NEGATIVE_INFINITY).writeTo(dir);
    assertThat(loadFails()).hasMessageContaining(dir.resolve("model.safetensors").toString())
        .hasMessageContaining("bert.embeddings.LayerNorm.bias")
        .hasMessageContaining("-Infinity at element 15");
  }

  @Test
  void infinityInAFloat16CheckpointIsRefused() {
    Path w = dir.resolve("model.safetensors");
    TinyBert.create(2, 4, 21).edit("pooler.dense.bias", d -> d[0] = 1e6f).writeTo(dir); // beyond float16's 65504
    RawSafetensors.rewriteAs16Bit(w, "F16", RawSafetensors::toF16);
    assertThat(loadFails()).hasMessageContaining(w.toString()).hasMessageContaining("bert.pooler.dense.bias")
        .hasMessageContaining("Infinity at element 0");
  }

  @Test
  void weightOfAnIntegerDtypeIsReportedWithItsDtypeNotAsMissing() {
    Path w = dir.resolve("model.safetensors");
    String victim = "bert.encoder.layer.0.output.dense.bias";
    List<RawSafetensors.Entry> entries = new ArrayList<>(RawSafetensors.readF32(w));
    entries.replaceAll(e -> e.name().equals(victim) ? new RawSafetensors.Entry(victim, "I32", e.shape(), e.data()) : e);
    RawSafetensors.write(w, entries);
    assertThat(loadFails()).hasMessageContaining(w.toString()).hasMessageContaining(victim)
        .hasMessageContaining("dtype I32").hasMessageNotContaining("no tensor");
  }

  @Test
  void configErrorsNameThePathOnce() throws IOException {
    editConfig(c -> c.remove("hidden_size"));
    String path = dir.resolve("config.json").toString();
    String m = loadFails().getMessage();
    assertThat(m).startsWith(path + " ");
    assertThat(m.indexOf(dir.toString())).isEqualTo(m.lastIndexOf(dir.toString()));
  }

  @Test
  void configCheckedInTheConstructorNamesThePathOnce() throws IOException {
    editConfig(c -> c.put("num_hidden_layers", -2));
    String m = loadFails().getMessage();
    assertThat(m).startsWith(dir.resolve("config.json") + ": num_hidden_layers");
    assertThat(m.indexOf(dir.toString())).isEqualTo(m.lastIndexOf(dir.toString()));
  }

  @Test
  void fractionalLayerCountIsRefused() throws IOException {
    editConfig(c -> c.put("num_hidden_layers", 2.5));
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString())
        .hasMessageContaining("\"num_hidden_layers\"").hasMessageContaining("2.5");
  }

  @Test
  void fractionalOptionalFieldIsRefused() throws IOException {
    editConfig(c -> c.put("type_vocab_size", 1.5));
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString())
        .hasMessageContaining("\"type_vocab_size\"").hasMessageContaining("1.5");
  }

  @Test
  void absurdLayerCountIsRefusedBeforeAllocating() throws IOException {
    editConfig(c -> c.put("num_hidden_layers", Integer.MAX_VALUE));
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString())
        .hasMessageContaining("num_hidden_layers").hasMessageContaining(Integer.toString(Integer.MAX_VALUE));
  }

  @Test
  void absurdHiddenSizeIsRefused() throws IOException {
    editConfig(c -> {
      c.put("hidden_size", 1 << 20);
      c.put("num_attention_heads", 1);
    });
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString())
        .hasMessageContaining("hidden_size").hasMessageContaining(Integer.toString(1 << 20));
  }

  @Test
  void moreLayersThanTheWeightsHoldIsRefusedNamingTheLastMissingLayer() throws IOException {
    editConfig(c -> c.put("num_hidden_layers", 1000));
    assertThat(loadFails()).hasMessageContaining("model.safetensors").hasMessageContaining("1000 layers")
        .hasMessageContaining("encoder.layer.999.");
  }

  @Test
  void tensorShapeWhoseElementCountOverflowsIsRefused() throws IOException {
    Path w = dir.resolve("model.safetensors");
    List<RawSafetensors.Entry> entries = new ArrayList<>(RawSafetensors.readF32(w));
    // 2^62 x 4 floats: the count wraps to 0 in a long, which "matches" 0 bytes
    entries.add(new RawSafetensors.Entry("bert.huge", "F32", new long[] {1L << 62, 4}, new byte[0]));
    RawSafetensors.write(w, entries);
    assertThat(loadFails()).hasMessageContaining(w.toString()).hasMessageContaining("bert.huge")
        .hasMessageContaining("[4611686018427387904, 4]");
  }

  @Test
  void positionsFewerThanTheInputAreCutToTheModelsMaximum() {
    io.headscope.model.core.BertConfig small = new io.headscope.model.core.BertConfig(TinyBert.VOCAB.size(), 16, 2, 4, 32,
        "gelu", 8, 2, 1e-12, List.of());
    TinyBert.create(small, 21).writeTo(dir);
    try (BertModel m = BertModel.load(repo.folder(dir))) {
      var e = m.encode("the cat sat on the mat and the dog ran in the house", null);
      assertThat(e.length()).isEqualTo(8);
      Maps.assertRowsAreDistributions(m.trace(e), 1e-5);
    }
  }

  @Test
  void fewerPositionsThanAnyInputNeedsIsRefused() throws IOException {
    editConfig(c -> c.put("max_position_embeddings", 2));
    assertThat(loadFails()).hasMessageContaining(dir.resolve("config.json").toString())
        .hasMessageContaining("max_position_embeddings");
  }

  @Test
  void aPairOnAModelWithOneSegmentTypeIsRefusedClearly() {
    io.headscope.model.core.BertConfig one = new io.headscope.model.core.BertConfig(TinyBert.VOCAB.size(), 16, 2, 4, 32,
        "gelu", 64, 1, 1e-12, List.of());
    TinyBert.create(one, 21).writeTo(dir);
    try (BertModel m = BertModel.load(repo.folder(dir))) {
      Maps.assertRowsAreDistributions(m.trace(m.encode("the cat sat", null)), 1e-5); // one sentence works
      assertThatThrownBy(() -> m.trace(m.encode("the cat sat", "a dog ran")))
          .isInstanceOf(HeadScopeException.class)
          .hasMessageContaining(dir.resolve("config.json").toString())
          .hasMessageContaining("type_vocab_size 1")
          .hasMessageContaining("second sentence")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
  }

  @Test
  void binaryVocabularySaysItIsNotUtf8Text() throws IOException {
    Files.delete(dir.resolve("tokenizer.json"));
    byte[] junk = new byte[512];
    new java.util.Random(3).nextBytes(junk);
    junk[0] = (byte) 0xC3; // a UTF-8 lead byte without its continuation, so the text is surely not UTF-8
    junk[1] = 0x41;
    Files.write(dir.resolve("vocab.txt"), junk);
    assertThat(loadFails()).hasMessageContaining(dir.resolve("vocab.txt").toString())
        .hasMessageContaining("not UTF-8 text").hasMessageNotContaining("Input length");
  }

  private void editConfig(Consumer<ObjectNode> edit) throws IOException {
    ObjectMapper json = new ObjectMapper();
    Path config = dir.resolve("config.json");
    ObjectNode root = (ObjectNode) json.readTree(config.toFile());
    edit.accept(root);
    Files.writeString(config, json.writeValueAsString(root));
  }
}
