package io.headscope.model.testing.families;

import io.headscope.model.testing.ReferenceSafetensors;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every written checkpoint's tensor names and shapes against lists written down by hand from transformers'
 * modeling files (module attribute names, nn.Linear (out, in), Conv1D (in, out)), for each family's
 * default tiny shape ({@link TinyFamilyCheckpoint#defaultShape}). Lines with {@code {l}} repeat per layer.
 * The lists are read back from the written file by the reference's own safetensors reader.
 */
class FamilyCheckpointNamesTest {
  @TempDir Path dir;

  /** BertLayer, as modeling_bert.py names it (RoBERTa, XLM-R and ELECTRA copy it): H hidden, F intermediate. */
  private static List<String> bertLayer(String prefix, int h, int f) {
    return List.of(
        prefix + "{l}.attention.self.query.weight " + h + "x" + h, prefix + "{l}.attention.self.query.bias " + h,
        prefix + "{l}.attention.self.key.weight " + h + "x" + h, prefix + "{l}.attention.self.key.bias " + h,
        prefix + "{l}.attention.self.value.weight " + h + "x" + h, prefix + "{l}.attention.self.value.bias " + h,
        prefix + "{l}.attention.output.dense.weight " + h + "x" + h, prefix + "{l}.attention.output.dense.bias " + h,
        prefix + "{l}.attention.output.LayerNorm.weight " + h, prefix + "{l}.attention.output.LayerNorm.bias " + h,
        prefix + "{l}.intermediate.dense.weight " + f + "x" + h, prefix + "{l}.intermediate.dense.bias " + f,
        prefix + "{l}.output.dense.weight " + h + "x" + f, prefix + "{l}.output.dense.bias " + h,
        prefix + "{l}.output.LayerNorm.weight " + h, prefix + "{l}.output.LayerNorm.bias " + h);
  }

  @Test
  void bertForMaskedLm() {
    // V 48, H 16, F 32, P 40, 2 layers; BertForMaskedLM has no pooler (add_pooling_layer=False).
    List<String> expected = new ArrayList<>(List.of(
        "bert.embeddings.word_embeddings.weight 48x16",
        "bert.embeddings.position_embeddings.weight 40x16",
        "bert.embeddings.token_type_embeddings.weight 2x16",
        "bert.embeddings.LayerNorm.weight 16", "bert.embeddings.LayerNorm.bias 16",
        "cls.predictions.transform.dense.weight 16x16", "cls.predictions.transform.dense.bias 16",
        "cls.predictions.transform.LayerNorm.weight 16", "cls.predictions.transform.LayerNorm.bias 16",
        "cls.predictions.bias 48",
        "cls.predictions.decoder.weight 48x16"));
    expected.addAll(bertLayer("bert.encoder.layer.", 16, 32));
    assertWritten("bert", expected, 2);
  }

  @Test
  void robertaForMaskedLm() {
    // V 50, H 12, F 24, 40 usable positions + 2 (padding_idx 1), type_vocab_size 1, 2 layers.
    List<String> expected = new ArrayList<>(List.of(
        "roberta.embeddings.word_embeddings.weight 50x12",
        "roberta.embeddings.position_embeddings.weight 42x12",
        "roberta.embeddings.token_type_embeddings.weight 1x12",
        "roberta.embeddings.LayerNorm.weight 12", "roberta.embeddings.LayerNorm.bias 12",
        "lm_head.dense.weight 12x12", "lm_head.dense.bias 12",
        "lm_head.layer_norm.weight 12", "lm_head.layer_norm.bias 12",
        "lm_head.decoder.weight 50x12",
        "lm_head.bias 50"));
    expected.addAll(bertLayer("roberta.encoder.layer.", 12, 24));
    assertWritten("roberta", expected, 2);
  }

  @Test
  void xlmRobertaForMaskedLm() {
    // XLMRobertaForMaskedLM keeps RoBERTa's names and prefix: V 60, H 16, F 36, 32 + 2 positions, 3 layers.
    List<String> expected = new ArrayList<>(List.of(
        "roberta.embeddings.word_embeddings.weight 60x16",
        "roberta.embeddings.position_embeddings.weight 34x16",
        "roberta.embeddings.token_type_embeddings.weight 1x16",
        "roberta.embeddings.LayerNorm.weight 16", "roberta.embeddings.LayerNorm.bias 16",
        "lm_head.dense.weight 16x16", "lm_head.dense.bias 16",
        "lm_head.layer_norm.weight 16", "lm_head.layer_norm.bias 16",
        "lm_head.decoder.weight 60x16",
        "lm_head.bias 60"));
    expected.addAll(bertLayer("roberta.encoder.layer.", 16, 36));
    assertWritten("xlm-roberta", expected, 3);
  }

  @Test
  void distilBertForMaskedLm() {
    // V 44, dim 16, hidden_dim 40, P 48, 3 layers; no token types.
    List<String> expected = List.of(
        "distilbert.embeddings.word_embeddings.weight 44x16",
        "distilbert.embeddings.position_embeddings.weight 48x16",
        "distilbert.embeddings.LayerNorm.weight 16", "distilbert.embeddings.LayerNorm.bias 16",
        "distilbert.transformer.layer.{l}.attention.q_lin.weight 16x16", "distilbert.transformer.layer.{l}.attention.q_lin.bias 16",
        "distilbert.transformer.layer.{l}.attention.k_lin.weight 16x16", "distilbert.transformer.layer.{l}.attention.k_lin.bias 16",
        "distilbert.transformer.layer.{l}.attention.v_lin.weight 16x16", "distilbert.transformer.layer.{l}.attention.v_lin.bias 16",
        "distilbert.transformer.layer.{l}.attention.out_lin.weight 16x16", "distilbert.transformer.layer.{l}.attention.out_lin.bias 16",
        "distilbert.transformer.layer.{l}.sa_layer_norm.weight 16", "distilbert.transformer.layer.{l}.sa_layer_norm.bias 16",
        "distilbert.transformer.layer.{l}.ffn.lin1.weight 40x16", "distilbert.transformer.layer.{l}.ffn.lin1.bias 40",
        "distilbert.transformer.layer.{l}.ffn.lin2.weight 16x40", "distilbert.transformer.layer.{l}.ffn.lin2.bias 16",
        "distilbert.transformer.layer.{l}.output_layer_norm.weight 16", "distilbert.transformer.layer.{l}.output_layer_norm.bias 16",
        "vocab_transform.weight 16x16", "vocab_transform.bias 16",
        "vocab_layer_norm.weight 16", "vocab_layer_norm.bias 16",
        "vocab_projector.weight 44x16", "vocab_projector.bias 44");
    assertWritten("distilbert", expected, 3);
  }

  @Test
  void electraForMaskedLm() {
    // V 56, embedding_size 8, H 12, F 24, P 36, 2 layers: embeddings of width 8, embeddings_project 8 -> 12.
    List<String> expected = new ArrayList<>(List.of(
        "electra.embeddings.word_embeddings.weight 56x8",
        "electra.embeddings.position_embeddings.weight 36x8",
        "electra.embeddings.token_type_embeddings.weight 2x8",
        "electra.embeddings.LayerNorm.weight 8", "electra.embeddings.LayerNorm.bias 8",
        "electra.embeddings_project.weight 12x8", "electra.embeddings_project.bias 12",
        "generator_predictions.dense.weight 8x12", "generator_predictions.dense.bias 8",
        "generator_predictions.LayerNorm.weight 8", "generator_predictions.LayerNorm.bias 8",
        "generator_lm_head.weight 56x8", "generator_lm_head.bias 56"));
    expected.addAll(bertLayer("electra.encoder.layer.", 12, 24));
    assertWritten("electra", expected, 2);
  }

  @Test
  void albertForMaskedLm() {
    // V 52, embedding_size 6, H 16, F 28, P 40; one group of one layer, whatever num_hidden_layers (3) says.
    String p = "albert.encoder.albert_layer_groups.0.albert_layers.0.";
    List<String> expected = List.of(
        "albert.embeddings.word_embeddings.weight 52x6",
        "albert.embeddings.position_embeddings.weight 40x6",
        "albert.embeddings.token_type_embeddings.weight 2x6",
        "albert.embeddings.LayerNorm.weight 6", "albert.embeddings.LayerNorm.bias 6",
        "albert.encoder.embedding_hidden_mapping_in.weight 16x6", "albert.encoder.embedding_hidden_mapping_in.bias 16",
        p + "full_layer_layer_norm.weight 16", p + "full_layer_layer_norm.bias 16",
        p + "attention.query.weight 16x16", p + "attention.query.bias 16",
        p + "attention.key.weight 16x16", p + "attention.key.bias 16",
        p + "attention.value.weight 16x16", p + "attention.value.bias 16",
        p + "attention.dense.weight 16x16", p + "attention.dense.bias 16",
        p + "attention.LayerNorm.weight 16", p + "attention.LayerNorm.bias 16",
        p + "ffn.weight 28x16", p + "ffn.bias 28",
        p + "ffn_output.weight 16x28", p + "ffn_output.bias 16",
        "predictions.LayerNorm.weight 6", "predictions.LayerNorm.bias 6",
        "predictions.bias 52",
        "predictions.dense.weight 6x16", "predictions.dense.bias 6",
        "predictions.decoder.weight 52x6");
    assertWritten("albert", expected, 3);
  }

  /** GPT2Block's names: Conv1D weights are (in, out), c_attn packs q, k, v; n_inner null means 4 x 12 = 48. */
  private static List<String> gpt2Blocks(String prefix) {
    return List.of(
        prefix + "h.{l}.ln_1.weight 12", prefix + "h.{l}.ln_1.bias 12",
        prefix + "h.{l}.attn.c_attn.weight 12x36", prefix + "h.{l}.attn.c_attn.bias 36",
        prefix + "h.{l}.attn.c_proj.weight 12x12", prefix + "h.{l}.attn.c_proj.bias 12",
        prefix + "h.{l}.ln_2.weight 12", prefix + "h.{l}.ln_2.bias 12",
        prefix + "h.{l}.mlp.c_fc.weight 12x48", prefix + "h.{l}.mlp.c_fc.bias 48",
        prefix + "h.{l}.mlp.c_proj.weight 48x12", prefix + "h.{l}.mlp.c_proj.bias 12");
  }

  @Test
  void gpt2LmHeadModel() {
    // V 64, n_embd 12, n_positions 32, 2 layers.
    List<String> expected = new ArrayList<>(List.of(
        "transformer.wte.weight 64x12", "transformer.wpe.weight 32x12",
        "transformer.ln_f.weight 12", "transformer.ln_f.bias 12",
        "lm_head.weight 64x12"));
    expected.addAll(gpt2Blocks("transformer."));
    assertWritten("gpt2", expected, 2);
  }

  @Test
  void gpt2AsOnTheHub() {
    // openai-community/gpt2's files: GPT2Model names, the causal-mask buffers, no lm_head.weight.
    List<String> expected = new ArrayList<>(List.of(
        "wte.weight 64x12", "wpe.weight 32x12", "ln_f.weight 12", "ln_f.bias 12",
        "h.{l}.attn.bias 1x1x32x32", "h.{l}.attn.masked_bias scalar"));
    expected.addAll(gpt2Blocks(""));
    TinyFamilyCheckpoint hub = TinyFamilyCheckpoint.create("gpt2", 1).gpt2AsOnHub();
    assertThat(written(hub)).isEqualTo(expand(expected, 2));
    // The mask buffer is 1 on and below the diagonal.
    var bias = ReferenceSafetensors.read(hub.writeTo(dir.resolve("hub")).resolve("model.safetensors")).get("h.0.attn.bias");
    assertThat(bias.values()[0]).isEqualTo(1.0);
    assertThat(bias.values()[1]).isEqualTo(0.0);
    assertThat(bias.values()[32 + 1]).isEqualTo(1.0);
  }

  @Test
  void bareModelsHaveNoPrefixNoHeadAndThePoolerWhereTheBaseClassHasOne() {
    // BertModel / RobertaModel / XLMRobertaModel: pooler.dense (Linear H x H); AlbertModel: pooler (Linear);
    // DistilBertModel, ElectraModel, GPT2Model: no pooler.
    Map<String, List<String>> poolers = Map.of(
        "bert", List.of("pooler.dense.weight 16x16", "pooler.dense.bias 16"),
        "roberta", List.of("pooler.dense.weight 12x12", "pooler.dense.bias 12"),
        "xlm-roberta", List.of("pooler.dense.weight 16x16", "pooler.dense.bias 16"),
        "albert", List.of("pooler.weight 16x16", "pooler.bias 16"),
        "distilbert", List.of(), "electra", List.of(), "gpt2", List.of());
    for (String type : TinyFamilyCheckpoint.MODEL_TYPES) {
      String prefix = FamilyConfigs.basePrefix(type);
      TreeSet<String> expected = new TreeSet<>();
      for (String line : written(TinyFamilyCheckpoint.create(type, 1))) {
        if (line.startsWith(prefix)) {
          expected.add(line.substring(prefix.length()));
        }
      }
      expected.addAll(poolers.get(type));
      assertThat(written(TinyFamilyCheckpoint.create(type, 1).bare())).as(type).isEqualTo(expected);
    }
  }

  private void assertWritten(String type, List<String> expected, int layers) {
    TreeSet<String> want = expand(expected, layers);
    assertThat(written(TinyFamilyCheckpoint.create(type, 1))).isEqualTo(want);
    TreeSet<String> withoutTied = new TreeSet<>(want);
    withoutTied.removeIf(line -> line.startsWith("cls.predictions.decoder.weight ") || line.startsWith("lm_head.decoder.weight ")
        || line.startsWith("vocab_projector.weight ") || line.startsWith("generator_lm_head.weight ")
        || line.startsWith("predictions.decoder.weight ") || line.startsWith("lm_head.weight "));
    assertThat(written(TinyFamilyCheckpoint.create(type, 1).omitTiedWeights())).isEqualTo(withoutTied);
  }

  private TreeSet<String> written(TinyFamilyCheckpoint c) {
    Path folder = c.writeTo(dir.resolve(c.modelType() + "-" + System.nanoTime()));
    return ReferenceSafetensors.read(folder.resolve("model.safetensors")).entrySet().stream()
        .map(e -> e.getKey() + " " + dims(e.getValue().shape()))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static String dims(long[] shape) {
    return shape.length == 0 ? "scalar"
        : Arrays.stream(shape).mapToObj(Long::toString).collect(Collectors.joining("x"));
  }

  private static TreeSet<String> expand(List<String> lines, int layers) {
    TreeSet<String> out = new TreeSet<>();
    for (String line : lines) {
      if (line.contains("{l}")) {
        for (int l = 0; l < layers; l++) {
          out.add(line.replace("{l}", Integer.toString(l)));
        }
      } else {
        out.add(line);
      }
    }
    return out;
  }
}
