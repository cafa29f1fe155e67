package io.headscope.model.testing.families;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each family's config.json, read back as JSON, uses that config class's own keys and spellings. */
class FamilyConfigJsonTest {
  @TempDir Path dir;

  private JsonNode written(TinyFamilyCheckpoint c) throws Exception {
    return new ObjectMapper().readTree(c.writeTo(dir.resolve(c.modelType())).resolve("config.json").toFile());
  }

  @Test
  void distilBertUsesItsOwnNames() throws Exception {
    JsonNode c = written(TinyFamilyCheckpoint.create("distilbert", 1));
    assertThat(c.get("model_type").asText()).isEqualTo("distilbert");
    assertThat(c.get("architectures").get(0).asText()).isEqualTo("DistilBertForMaskedLM");
    assertThat(c.get("dim").asInt()).isEqualTo(16);
    assertThat(c.get("n_layers").asInt()).isEqualTo(3);
    assertThat(c.get("n_heads").asInt()).isEqualTo(4);
    assertThat(c.get("hidden_dim").asInt()).isEqualTo(40);
    assertThat(c.get("activation").asText()).isEqualTo("gelu");
    assertThat(c.get("max_position_embeddings").asInt()).isEqualTo(48);
    assertThat(c.get("sinusoidal_pos_embds").asBoolean()).isFalse();
    assertThat(c.has("hidden_size")).isFalse(); // an attribute_map alias, not a serialized key
  }

  @Test
  void gpt2UsesItsOwnNamesAndANullInnerSize() throws Exception {
    JsonNode c = written(TinyFamilyCheckpoint.create("gpt2", 1));
    assertThat(c.get("architectures").get(0).asText()).isEqualTo("GPT2LMHeadModel");
    assertThat(c.get("n_embd").asInt()).isEqualTo(12);
    assertThat(c.get("n_layer").asInt()).isEqualTo(2);
    assertThat(c.get("n_head").asInt()).isEqualTo(3);
    assertThat(c.get("n_positions").asInt()).isEqualTo(32);
    assertThat(c.get("n_inner").isNull()).isTrue(); // means 4 * n_embd
    assertThat(c.get("activation_function").asText()).isEqualTo("gelu_new");
    assertThat(c.get("layer_norm_epsilon").asDouble()).isEqualTo(1e-5);
    assertThat(c.has("hidden_size")).isFalse();
  }

  @Test
  void electraAndAlbertHaveASmallerEmbeddingSize() throws Exception {
    JsonNode e = written(TinyFamilyCheckpoint.create("electra", 1));
    assertThat(e.get("architectures").get(0).asText()).isEqualTo("ElectraForMaskedLM");
    assertThat(e.get("embedding_size").asInt()).isEqualTo(8);
    assertThat(e.get("hidden_size").asInt()).isEqualTo(12);
    JsonNode a = written(TinyFamilyCheckpoint.create("albert", 1));
    assertThat(a.get("architectures").get(0).asText()).isEqualTo("AlbertForMaskedLM");
    assertThat(a.get("embedding_size").asInt()).isEqualTo(6);
    assertThat(a.get("hidden_size").asInt()).isEqualTo(16);
    assertThat(a.get("num_hidden_groups").asInt()).isEqualTo(1);
    assertThat(a.get("inner_group_num").asInt()).isEqualTo(1);
    assertThat(a.get("num_hidden_layers").asInt()).isEqualTo(3);
  }

  @Test
  void robertaAndXlmRobertaPadWithOneAndHaveTwoExtraPositions() throws Exception {
    for (String type : new String[] {"roberta", "xlm-roberta"}) {
      JsonNode c = written(TinyFamilyCheckpoint.create(type, 1));
      assertThat(c.get("model_type").asText()).isEqualTo(type);
      assertThat(c.get("architectures").get(0).asText())
          .isEqualTo(type.equals("roberta") ? "RobertaForMaskedLM" : "XLMRobertaForMaskedLM");
      assertThat(c.get("pad_token_id").asInt()).isEqualTo(1);
      assertThat(c.get("type_vocab_size").asInt()).isEqualTo(1);
      assertThat(c.get("max_position_embeddings").asInt())
          .isEqualTo(TinyFamilyCheckpoint.defaultShape(type).positions() + 2);
    }
  }

  @Test
  void bareModelsNameTheBaseClass() throws Exception {
    assertThat(written(TinyFamilyCheckpoint.create("bert", 1).bare()).get("architectures").get(0).asText())
        .isEqualTo("BertModel");
    assertThat(written(TinyFamilyCheckpoint.create("gpt2", 1).bare()).get("architectures").get(0).asText())
        .isEqualTo("GPT2Model");
  }
}
