package io.headscope.model.robust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.BertModel;
import io.headscope.model.checkpoint.FloatTensor;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A config.json read for meaning (issue 39): fields that change what transformers computes and that
 * HeadScope does not model are refused naming the field (G13); untied output embeddings are read as
 * stored (G14); a NaN is named where it stands; each family's activation key is named as the file has it.
 */
class ConfigMeaningTest {
  @TempDir Path tmp;
  private Path dir;
  private ModelRepository repo;

  @BeforeEach
  void writeGoodModel() {
    dir = tmp.resolve("model");
    TinyBert.create(2, 4, 21).writeTo(dir);
    repo = new ModelRepository(tmp.resolve("cache"));
  }

  private String loadFails(Path folder) {
    try {
      BertModel.load(repo.folder(folder)).close();
    } catch (HeadScopeException e) {
      assertThat(e.getMessage()).doesNotContain("\n");
      return e.getMessage();
    }
    throw new AssertionError("the model loaded");
  }

  private void loads(Path folder) {
    BertModel.load(repo.folder(folder)).close();
  }

  private static void editConfig(Path folder, Consumer<ObjectNode> edit) throws IOException {
    ObjectMapper json = new ObjectMapper();
    Path config = folder.resolve("config.json");
    ObjectNode root = (ObjectNode) json.readTree(config.toFile());
    edit.accept(root);
    Files.writeString(config, json.writeValueAsString(root));
  }

  /** transformers masks a BERT with is_decoder causally: HeadScope's bidirectional maps would be wrong. */
  @Test
  void aBertDecoderIsRefusedNamingTheField() throws IOException {
    editConfig(dir, c -> c.put("is_decoder", true));
    assertThat(loadFails(dir)).startsWith(dir.resolve("config.json") + ": \"is_decoder\" is true:")
        .contains("bidirectionally");
  }

  /** Python's truth: 1 is true. */
  @Test
  void aRobertaDecoderIsRefusedToo() throws IOException {
    Path roberta = tmp.resolve("roberta");
    FamilyModelFolders.write("roberta", roberta, 3);
    editConfig(roberta, c -> c.put("is_decoder", 1));
    assertThat(loadFails(roberta)).contains("\"is_decoder\" is 1").contains("RoBERTa");
    editConfig(roberta, c -> c.put("is_decoder", false));
    loads(roberta);
  }

  /** AlbertModel and DistilBertModel build their masks without is_decoder: there it changes nothing. */
  @Test
  void isDecoderWhereTheFamilyIgnoresItIsNoReasonToRefuse() throws IOException {
    Path albert = tmp.resolve("albert");
    FamilyModelFolders.write("albert", albert, 3);
    editConfig(albert, c -> c.put("is_decoder", true));
    loads(albert);
  }

  @Test
  void crossAttentionRelativePositionsAndPrunedHeadsAreRefused() throws IOException {
    editConfig(dir, c -> c.put("add_cross_attention", true));
    assertThat(loadFails(dir)).contains("\"add_cross_attention\" is true").contains("cross-attention");
    editConfig(dir, c -> c.remove("add_cross_attention"));
    editConfig(dir, c -> c.put("position_embedding_type", "relative_key_query"));
    assertThat(loadFails(dir)).contains("\"position_embedding_type\" is \"relative_key_query\"");
    editConfig(dir, c -> c.put("position_embedding_type", "absolute"));
    loads(dir);
    editConfig(dir, c -> c.putObject("pruned_heads").putArray("0").add(1));
    assertThat(loadFails(dir)).contains("\"pruned_heads\" is {\"0\":[1]}");
    editConfig(dir, c -> c.putObject("pruned_heads"));
    loads(dir); // none pruned
  }

  /** Python's json writes NaN for a float('nan'): the message names the field, not "not valid JSON". */
  @Test
  void aNanIsNamedWhereItStands() throws IOException {
    Path c = dir.resolve("config.json");
    String good = Files.readString(c);
    Files.writeString(c, good.replaceFirst("\"layer_norm_eps\"\\s*:\\s*[^,}\\s]+", "\"layer_norm_eps\": NaN"));
    assertThat(Files.readString(c)).contains("\"layer_norm_eps\": NaN");
    assertThat(loadFails(dir)).isEqualTo(c + ": \"layer_norm_eps\" is NaN, not a finite number.");
    Files.writeString(c, good.replaceFirst("\"hidden_size\"\\s*:\\s*16", "\"hidden_size\": -Infinity"));
    assertThat(loadFails(dir)).isEqualTo(c + ": \"hidden_size\" is -Infinity, not a finite number.");
    // a field the forward pass does not read may be NaN, as transformers lets it be
    Files.writeString(c, good.replaceFirst("\\{", "{\"initializer_range\": NaN,"));
    loads(dir);
  }

  /** DistilBertConfig calls it activation and GPT2Config activation_function: the message says so. */
  @Test
  void anActivationIsRefusedUnderTheKeyTheFileUses() throws IOException {
    Path distil = tmp.resolve("distil");
    FamilyModelFolders.write("distilbert", distil, 3);
    editConfig(distil, c -> c.put("activation", "relu"));
    assertThat(loadFails(distil)).isEqualTo(distil.resolve("config.json")
        + ": activation \"relu\" is not supported (use gelu, gelu_new or gelu_pytorch_tanh).");
    Path gpt2 = tmp.resolve("gpt2");
    FamilyModelFolders.write("gpt2", gpt2, 3);
    editConfig(gpt2, c -> c.put("activation_function", "swish"));
    assertThat(loadFails(gpt2)).contains(": activation_function \"swish\" is not supported");
  }

  /**
   * tie_word_embeddings false: the decoder is the checkpoint's own cls.predictions.decoder.weight. The
   * stored decoder here is the word embeddings with the rows of "cat" and "dog" swapped (and the two share
   * one output bias), so the untied
   * model's log-probability of "cat" is the tied model's of "dog" and the reverse, and every other token's
   * is the tied model's: each logit is the dot product of the same two vectors of 16 floats (a bias
   * added), and the softmax's normaliser sums the same logits. Float32 bound: the products may be
   * blocked differently for other columns, which changes a length-16 dot product by at most 16 eps
   * sum|t_i w_i| (under 1e-4 here: |t_i| < 4 after LayerNorm, |w_i| < 3), so 1e-4 is allowed.
   */
  @Test
  void untiedOutputEmbeddingsAreReadAsStored() throws IOException {
    Path untied = tmp.resolve("untied");
    int cat = TinyBert.VOCAB.indexOf("cat");
    int dog = TinyBert.VOCAB.indexOf("dog");
    // one output bias for both, so that swapping their decoder rows swaps their logits exactly
    TinyBert.create(2, 4, 21).edit("cls.predictions.bias", b -> b[dog] = b[cat]).writeTo(untied);
    Path w = untied.resolve("model.safetensors");
    List<FloatTensor> tensors = new ArrayList<>();
    float[] decoder;
    long[] shape;
    try (Safetensors st = Safetensors.open(w)) {
      for (String name : st.tensors().keySet()) {
        tensors.add(st.readFloat(name));
      }
      FloatTensor e = st.readFloat("bert.embeddings.word_embeddings.weight");
      shape = e.shape();
      decoder = e.data().clone();
    }
    int d = (int) shape[1];
    for (int i = 0; i < d; i++) {
      float x = decoder[cat * d + i];
      decoder[cat * d + i] = decoder[dog * d + i];
      decoder[dog * d + i] = x;
    }
    tensors.add(new FloatTensor("cls.predictions.decoder.weight", shape, decoder));
    Files.delete(w);
    Safetensors.write(w, tensors, Map.of("format", "pt"));

    float[] tiedLp = logProbs(untied); // the stored copy is not read while tied (transformers' rule)
    editConfig(untied, c -> c.put("tie_word_embeddings", false));
    float[] untiedLp = logProbs(untied);
    assertThat(untiedLp[cat]).isCloseTo(tiedLp[dog], within(1e-4f));
    assertThat(untiedLp[dog]).isCloseTo(tiedLp[cat], within(1e-4f));
    assertThat(Math.abs(untiedLp[cat] - tiedLp[cat])).as("the swap shows").isGreaterThan(1e-3f);
    for (int v = 0; v < tiedLp.length; v++) {
      if (v != cat && v != dog) {
        assertThat(untiedLp[v]).as("token " + v).isCloseTo(tiedLp[v], within(1e-4f));
      }
    }
  }

  /**
   * GPT-2's lm_head.weight, untied: the stored matrix is wte with rows 5 and 6 swapped, so the next-token
   * log-probabilities of 5 and 6 swap and the others stay (GPT-2's head has no bias; the bound as above).
   */
  @Test
  void untiedGpt2ReadsItsLmHead() throws IOException {
    Path gpt2 = tmp.resolve("gpt2-untied");
    FamilyModelFolders.write("gpt2", gpt2, 5);
    Path w = gpt2.resolve("model.safetensors");
    List<FloatTensor> tensors = new ArrayList<>();
    try (Safetensors st = Safetensors.open(w)) {
      for (String name : st.tensors().keySet()) {
        tensors.add(st.readFloat(name));
      }
    }
    FloatTensor wte = tensors.stream().filter(t -> t.name().endsWith("wte.weight")).findFirst().orElseThrow();
    int d = (int) wte.shape()[1];
    float[] head = wte.data().clone();
    for (int i = 0; i < d; i++) {
      float x = head[5 * d + i];
      head[5 * d + i] = head[6 * d + i];
      head[6 * d + i] = x;
    }
    tensors.removeIf(t -> t.name().equals("lm_head.weight"));
    tensors.add(new FloatTensor("lm_head.weight", wte.shape(), head));
    Files.delete(w);
    Safetensors.write(w, tensors, Map.of("format", "pt"));
    float[] tied = lastLogProbs(gpt2);
    editConfig(gpt2, c -> c.put("tie_word_embeddings", false));
    float[] untied = lastLogProbs(gpt2);
    assertThat(untied[5]).isCloseTo(tied[6], within(1e-4f));
    assertThat(untied[6]).isCloseTo(tied[5], within(1e-4f));
    assertThat(Math.abs(untied[5] - tied[5])).as("the swap shows").isGreaterThan(1e-3f);
    for (int v = 0; v < tied.length; v++) {
      if (v != 5 && v != 6) {
        assertThat(untied[v]).as("token " + v).isCloseTo(tied[v], within(1e-4f));
      }
    }
  }

  private float[] lastLogProbs(Path folder) {
    try (BertModel m = BertModel.load(repo.folder(folder))) {
      Encoding in = m.encode("the cat sat", null);
      int last = in.ids().length - 1;
      return m.run(RunRequest.of(in).read(Readouts.none().withLogProbs(new int[] {last}))).logProbs()[0][0];
    }
  }

  @Test
  void untiedOutputEmbeddingsThatWereNotSavedAreRefused() throws IOException {
    editConfig(dir, c -> c.put("tie_word_embeddings", false));
    assertThat(loadFails(dir)).contains("tie_word_embeddings false")
        .contains("no tensor cls.predictions.decoder.weight");
  }

  private float[] logProbs(Path folder) {
    try (BertModel m = BertModel.load(repo.folder(folder))) {
      Encoding in = m.encode("the [MASK] sat on the mat .", null);
      return m.run(RunRequest.of(in).read(Readouts.none().withLogProbs(new int[] {2}))).logProbs()[0][0];
    }
  }
}
