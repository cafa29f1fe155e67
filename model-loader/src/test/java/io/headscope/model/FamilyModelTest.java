package io.headscope.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.testing.families.ReferenceDiff;
import io.headscope.model.testing.families.ReferenceForward;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each family from a model folder with its own tokenizer, through the public API the app and the CLI
 * use: text in, the family's special tokens, maps and hidden states equal to the reference's on the same
 * ids, predictions where the family makes them (at a mask, or GPT-2's next token).
 */
class FamilyModelTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"bert", "roberta", "xlm-roberta", "distilbert", "electra", "albert", "gpt2"})
  void textThroughTheFamilysTokenizerAndEngineMatchesTheReference(String type) {
    ModelFiles files = FamilyModelFolders.write(type, dir.resolve(type), 23);
    try (BertModel model = BertModel.load(files)) {
      Encoding e = model.encode("the cat sat", null);
      AttentionTrace t = model.trace(e);
      ReferenceForward.Result ref = ReferenceForward.run(dir.resolve(type), e.ids());
      assertThat(ReferenceDiff.maxAbs(ref.attention(), t.attention())).isLessThan(1e-5);
      assertThat(ReferenceDiff.maxAbs(ref.lastHidden(), t.hiddenStates())).isLessThan(1e-4);
      switch (type) {
        case "roberta", "xlm-roberta" -> {
          assertThat(e.tokens().get(0)).isEqualTo("<s>");
          assertThat(e.tokens().get(e.length() - 1)).isEqualTo("</s>");
        }
        case "gpt2" -> assertThat(e.tokens()).noneMatch(s -> s.startsWith("<"));
        default -> assertThat(e.tokens().get(0)).isEqualTo("[CLS]");
      }
    }
  }

  @Test
  void gpt2PredictsTheNextTokenAtTheLastPosition() {
    ModelFiles files = FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 23);
    try (BertModel model = BertModel.load(files)) {
      Encoding e = model.encode("the cat sat", null);
      AttentionTrace t = model.trace(e);
      assertThat(t.predictions()).hasSize(1);
      MaskPrediction p = t.predictions().get(0);
      assertThat(p.position()).isEqualTo(e.length() - 1);
      double[] logits = ReferenceForward.run(dir.resolve("gpt2"), e.ids()).logits()[e.length() - 1];
      double max = java.util.Arrays.stream(logits).max().orElseThrow();
      double sum = java.util.Arrays.stream(logits).map(x -> Math.exp(x - max)).sum();
      for (int v = 0; v < logits.length; v++) {
        assertThat((double) p.probabilities()[v]).isCloseTo(Math.exp(logits[v] - max) / sum,
            org.assertj.core.data.Offset.offset(1e-5));
      }
    }
  }

  @Test
  void robertaPredictsAtItsOwnMaskToken() {
    ModelFiles files = FamilyModelFolders.write("roberta", dir.resolve("roberta"), 23);
    try (BertModel model = BertModel.load(files)) {
      Encoding e = model.encode("the <mask> sat", null);
      AttentionTrace t = model.trace(e);
      assertThat(t.predictions()).hasSize(1);
      assertThat(e.tokens().get(t.predictions().get(0).position())).contains("<mask>");
    }
  }

  @Test
  void aFolderWithVocabJsonAndMergesButNoTokenizerJsonOpensAndStaysUntouched() throws Exception {
    Path folder = dir.resolve("gpt2-old-files");
    ModelFiles full = FamilyModelFolders.write("gpt2", folder, 23);
    splitIntoVocabAndMerges(full.tokenizer(), folder);
    Files.delete(full.tokenizer());
    ModelRepository repo = new ModelRepository(dir.resolve("cache"));
    ModelFiles opened = repo.folder(folder);
    assertThat(opened.tokenizer().startsWith(folder)).as("generated into the cache").isFalse();
    try (BertModel model = BertModel.load(opened)) {
      assertThat(model.encode("the cat sat", null).length()).isPositive();
    }
    assertThat(Files.exists(folder.resolve("tokenizer.json"))).isFalse();
  }

  /** GPT-2's older file pair, written from the tokenizer.json's own vocabulary and merges. */
  private static void splitIntoVocabAndMerges(Path tokenizerJson, Path folder) throws java.io.IOException {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    com.fasterxml.jackson.databind.JsonNode model = json.readTree(tokenizerJson.toFile()).get("model");
    json.writeValue(folder.resolve("vocab.json").toFile(), model.get("vocab"));
    StringBuilder merges = new StringBuilder("#version: 0.2\n");
    for (com.fasterxml.jackson.databind.JsonNode m : model.get("merges")) {
      merges.append(m.isArray() ? m.get(0).asText() + " " + m.get(1).asText() : m.asText()).append('\n');
    }
    Files.writeString(folder.resolve("merges.txt"), merges.toString());
  }

  @Test
  void pairsOfARobertaAreOneSegmentAsItsTemplateSays() {
    ModelFiles files = FamilyModelFolders.write("roberta", dir.resolve("roberta"), 23);
    try (BertModel model = BertModel.load(files)) {
      Encoding e = model.encode("the cat", "a dog");
      assertThat(e.segments()).containsOnly(0L);
      assertThat(e.tokens()).containsSubsequence("</s>", "</s>");
      assertThat(model.trace(e).attention()).isNotEmpty();
    }
  }

  @Test
  void fineTuningARobertaIsRefusedInOneLine() {
    ModelFiles files = FamilyModelFolders.write("roberta", dir.resolve("roberta"), 23);
    assertThatThrownBy(() -> io.headscope.model.engine.Trainer.start(
        io.headscope.model.core.BertConfig.read(files.config()),
        io.headscope.model.checkpoint.Safetensors.open(files.weights()), java.util.List.of("a", "b"),
        new io.headscope.model.engine.FineTuneOptions(1, 1e-3, 4, 0.1, 0.01, 0.1, 1), 4))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("RoBERTa");
  }

  @Test
  void aFineTunedRobertaLoadsForItsMapsAndSaysItsClassifierIsNotRead() throws Exception {
    Path folder = dir.resolve("roberta-classifier");
    ModelFiles files = FamilyModelFolders.write("roberta", folder, 23);
    // RobertaForSequenceClassification's head: dense + out_proj on <s> (not BERT's pooler + classifier)
    java.util.List<io.headscope.model.checkpoint.FloatTensor> all = new java.util.ArrayList<>();
    int d;
    try (io.headscope.model.checkpoint.Safetensors st = io.headscope.model.checkpoint.Safetensors.open(files.weights())) {
      for (String name : st.tensors().keySet()) {
        all.add(st.readFloat(name));
      }
      d = (int) st.tensors().get("roberta.embeddings.LayerNorm.weight").shape()[0];
    }
    all.add(new io.headscope.model.checkpoint.FloatTensor("classifier.dense.weight", new long[] {d, d}, new float[d * d]));
    all.add(new io.headscope.model.checkpoint.FloatTensor("classifier.dense.bias", new long[] {d}, new float[d]));
    all.add(new io.headscope.model.checkpoint.FloatTensor("classifier.out_proj.weight", new long[] {2, d}, new float[2 * d]));
    all.add(new io.headscope.model.checkpoint.FloatTensor("classifier.out_proj.bias", new long[] {2}, new float[2]));
    Path rewritten = folder.resolve("rewritten.safetensors");
    io.headscope.model.checkpoint.Safetensors.write(rewritten, all, java.util.Map.of("format", "pt"));
    Files.move(rewritten, files.weights(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    try (BertModel model = BertModel.load(files)) {
      assertThat(model.trace(model.encode("the cat sat", null)).attention()).isNotEmpty();
      assertThat(model.hasClassifier()).isFalse();
      assertThat(model.unreadClassifier()).hasValueSatisfying(why -> assertThat(why).contains("RoBERTa classifier head"));
    }
  }

  /** The checkpoint of {@code files} with {@code extra} tensors of the given shapes added (zeros). */
  private static void addTensors(ModelFiles files, java.util.Map<String, long[]> extra) throws Exception {
    java.util.List<io.headscope.model.checkpoint.FloatTensor> all = new java.util.ArrayList<>();
    try (io.headscope.model.checkpoint.Safetensors st = io.headscope.model.checkpoint.Safetensors.open(files.weights())) {
      for (String name : st.tensors().keySet()) {
        all.add(st.readFloat(name));
      }
    }
    extra.forEach((name, shape) -> all.add(new io.headscope.model.checkpoint.FloatTensor(name, shape,
        new float[(int) java.util.Arrays.stream(shape).reduce(1, (x, y) -> x * y)])));
    Path rewritten = files.weights().resolveSibling("rewritten.safetensors");
    io.headscope.model.checkpoint.Safetensors.write(rewritten, all, java.util.Map.of("format", "pt"));
    Files.move(rewritten, files.weights(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  @Test
  void aWeightOfAVariantHeadScopeDoesNotImplementIsRefusedInOneLine() throws Exception {
    ModelFiles files = FamilyModelFolders.write("roberta", dir.resolve("roberta-relative"), 23);
    // relative position embeddings (position_embedding_type "relative_key"): a variant the engine does not run
    addTensors(files, java.util.Map.of("roberta.encoder.layer.0.attention.self.distance_embedding.weight",
        new long[] {63, 4}));
    assertThatThrownBy(() -> BertModel.load(files)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("distance_embedding").hasMessageContaining("a RoBERTa")
        .hasMessageNotContaining("\n");
  }

  @Test
  void theHeadsAndBuffersHeadScopeNeedNotReadAreAccepted() throws Exception {
    ModelFiles files = FamilyModelFolders.write("electra", dir.resolve("electra-extras"), 23);
    int d = 16;
    addTensors(files, java.util.Map.of(
        "discriminator_predictions.dense.weight", new long[] {d, d},
        "discriminator_predictions.dense_prediction.weight", new long[] {1, d},
        "qa_outputs.weight", new long[] {2, d},
        "electra.embeddings.position_ids", new long[] {1, 8}));
    try (BertModel model = BertModel.load(files)) {
      assertThat(model.trace(model.encode("the cat sat", null)).attention()).isNotEmpty();
    }
  }
}
