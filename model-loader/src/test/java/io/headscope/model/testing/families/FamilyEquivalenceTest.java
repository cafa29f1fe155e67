package io.headscope.model.testing.families;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference's family-specific wiring checked against its BERT path (which agrees with the
 * TensorFlow-validated engine, {@link FamilyReferenceTest}): a RoBERTa, DistilBERT, ELECTRA (embedding
 * size = hidden size) or ALBERT (identity embedding mapping) is rebuilt as a BERT with the same numbers
 * under BERT's names, as the modeling files say each module corresponds, and both must give the same maps,
 * hidden states and logits. A module read under the wrong name, a position offset, an activation or an
 * eps taken from the wrong place, or ALBERT's sharing done wrong shows up as a difference.
 */
class FamilyEquivalenceTest {
  @TempDir Path dir;

  private static final long[] IDS = {0, 5, 17, 3, 9, 30, 2, 11, 7, 4};

  @Test
  void robertaIsBertWithPositionsShiftedPastThePadding() {
    TinyFamilyCheckpoint roberta = TinyFamilyCheckpoint.create("roberta", 21);
    TinyFamilyCheckpoint.Shape s = roberta.shape();
    TinyFamilyCheckpoint bert = bertOfShape(s);
    bert.config().put("layer_norm_eps", roberta.config().get("layer_norm_eps").asDouble()); // 1e-5, as roberta-base
    copy(roberta, "roberta.embeddings.word_embeddings.weight", bert, "bert.embeddings.word_embeddings.weight");
    // RoBERTa's token t (no padding) reads position row t + 2 (padding_idx 1 + 1).
    float[] pos = roberta.tensor("roberta.embeddings.position_embeddings.weight");
    bert.edit("bert.embeddings.position_embeddings.weight",
        w -> System.arraycopy(pos, 2 * s.hidden(), w, 0, s.positions() * s.hidden()));
    float[] type = roberta.tensor("roberta.embeddings.token_type_embeddings.weight");
    bert.edit("bert.embeddings.token_type_embeddings.weight", w -> System.arraycopy(type, 0, w, 0, s.hidden()));
    copyLayerNorm(roberta, "roberta.embeddings.LayerNorm", bert, "bert.embeddings.LayerNorm");
    for (int l = 0; l < s.layers(); l++) {
      for (String m : BERT_LAYER_TENSORS) {
        copy(roberta, "roberta.encoder.layer." + l + "." + m, bert, "bert.encoder.layer." + l + "." + m);
      }
    }
    copyLinear(roberta, "lm_head.dense", bert, "cls.predictions.transform.dense");
    copyLayerNorm(roberta, "lm_head.layer_norm", bert, "cls.predictions.transform.LayerNorm");
    copy(roberta, "lm_head.bias", bert, "cls.predictions.bias");
    assertSameRun(roberta, bert);
  }

  @Test
  void distilBertIsBertWithoutTokenTypes() {
    TinyFamilyCheckpoint distil = TinyFamilyCheckpoint.create("distilbert", 22);
    TinyFamilyCheckpoint.Shape s = distil.shape();
    TinyFamilyCheckpoint bert = bertOfShape(s); // eps 1e-12: DistilBERT's hard-coded value
    copy(distil, "distilbert.embeddings.word_embeddings.weight", bert, "bert.embeddings.word_embeddings.weight");
    copy(distil, "distilbert.embeddings.position_embeddings.weight", bert, "bert.embeddings.position_embeddings.weight");
    bert.edit("bert.embeddings.token_type_embeddings.weight", w -> Arrays.fill(w, 0f));
    copyLayerNorm(distil, "distilbert.embeddings.LayerNorm", bert, "bert.embeddings.LayerNorm");
    for (int l = 0; l < s.layers(); l++) {
      String d = "distilbert.transformer.layer." + l + ".";
      String b = "bert.encoder.layer." + l + ".";
      copyLinear(distil, d + "attention.q_lin", bert, b + "attention.self.query");
      copyLinear(distil, d + "attention.k_lin", bert, b + "attention.self.key");
      copyLinear(distil, d + "attention.v_lin", bert, b + "attention.self.value");
      copyLinear(distil, d + "attention.out_lin", bert, b + "attention.output.dense");
      copyLayerNorm(distil, d + "sa_layer_norm", bert, b + "attention.output.LayerNorm");
      copyLinear(distil, d + "ffn.lin1", bert, b + "intermediate.dense");
      copyLinear(distil, d + "ffn.lin2", bert, b + "output.dense");
      copyLayerNorm(distil, d + "output_layer_norm", bert, b + "output.LayerNorm");
    }
    copyLinear(distil, "vocab_transform", bert, "cls.predictions.transform.dense");
    copyLayerNorm(distil, "vocab_layer_norm", bert, "cls.predictions.transform.LayerNorm");
    copy(distil, "vocab_projector.bias", bert, "cls.predictions.bias");
    assertSameRun(distil, bert);
  }

  @Test
  void electraOfEqualWidthsIsBertWithTheGeneratorHead() {
    TinyFamilyCheckpoint.Shape s = new TinyFamilyCheckpoint.Shape(56, 12, 12, 2, 2, 24, 36);
    TinyFamilyCheckpoint electra = TinyFamilyCheckpoint.create("electra", s, 23);
    // ElectraModel builds embeddings_project only when embedding_size != hidden_size.
    assertThat(electra.writtenShapes()).doesNotContainKey("electra.embeddings_project.weight");
    TinyFamilyCheckpoint bert = bertOfShape(s);
    for (String m : List.of("word_embeddings.weight", "position_embeddings.weight", "token_type_embeddings.weight",
        "LayerNorm.weight", "LayerNorm.bias")) {
      copy(electra, "electra.embeddings." + m, bert, "bert.embeddings." + m);
    }
    for (int l = 0; l < s.layers(); l++) {
      for (String m : BERT_LAYER_TENSORS) {
        copy(electra, "electra.encoder.layer." + l + "." + m, bert, "bert.encoder.layer." + l + "." + m);
      }
    }
    copyLinear(electra, "generator_predictions.dense", bert, "cls.predictions.transform.dense");
    copyLayerNorm(electra, "generator_predictions.LayerNorm", bert, "cls.predictions.transform.LayerNorm");
    copy(electra, "generator_lm_head.bias", bert, "cls.predictions.bias");
    assertSameRun(electra, bert);
  }

  @Test
  void albertOfEqualWidthsIsBertWithTheSameLayerRepeated() {
    TinyFamilyCheckpoint.Shape s = new TinyFamilyCheckpoint.Shape(52, 16, 16, 3, 4, 28, 40);
    TinyFamilyCheckpoint albert = TinyFamilyCheckpoint.create("albert", s, 24)
        .edit("albert.encoder.embedding_hidden_mapping_in.weight", w -> {
          Arrays.fill(w, 0f);
          for (int i = 0; i < s.hidden(); i++) {
            w[i * s.hidden() + i] = 1f;
          }
        })
        .edit("albert.encoder.embedding_hidden_mapping_in.bias", w -> Arrays.fill(w, 0f));
    TinyFamilyCheckpoint bert = bertOfShape(s);
    bert.config().put("hidden_act", albert.config().get("hidden_act").asText()); // gelu_new, as albert-base-v2
    for (String m : List.of("word_embeddings.weight", "position_embeddings.weight", "token_type_embeddings.weight",
        "LayerNorm.weight", "LayerNorm.bias")) {
      copy(albert, "albert.embeddings." + m, bert, "bert.embeddings." + m);
    }
    String a = "albert.encoder.albert_layer_groups.0.albert_layers.0.";
    for (int l = 0; l < s.layers(); l++) {
      String b = "bert.encoder.layer." + l + ".";
      copyLinear(albert, a + "attention.query", bert, b + "attention.self.query");
      copyLinear(albert, a + "attention.key", bert, b + "attention.self.key");
      copyLinear(albert, a + "attention.value", bert, b + "attention.self.value");
      copyLinear(albert, a + "attention.dense", bert, b + "attention.output.dense");
      copyLayerNorm(albert, a + "attention.LayerNorm", bert, b + "attention.output.LayerNorm");
      copyLinear(albert, a + "ffn", bert, b + "intermediate.dense");
      copyLinear(albert, a + "ffn_output", bert, b + "output.dense");
      copyLayerNorm(albert, a + "full_layer_layer_norm", bert, b + "output.LayerNorm");
    }
    copyLinear(albert, "predictions.dense", bert, "cls.predictions.transform.dense");
    copyLayerNorm(albert, "predictions.LayerNorm", bert, "cls.predictions.transform.LayerNorm");
    copy(albert, "predictions.bias", bert, "cls.predictions.bias");
    assertSameRun(albert, bert);
  }

  private static final List<String> BERT_LAYER_TENSORS = List.of(
      "attention.self.query.weight", "attention.self.query.bias", "attention.self.key.weight",
      "attention.self.key.bias", "attention.self.value.weight", "attention.self.value.bias",
      "attention.output.dense.weight", "attention.output.dense.bias", "attention.output.LayerNorm.weight",
      "attention.output.LayerNorm.bias", "intermediate.dense.weight", "intermediate.dense.bias",
      "output.dense.weight", "output.dense.bias", "output.LayerNorm.weight", "output.LayerNorm.bias");

  private static TinyFamilyCheckpoint bertOfShape(TinyFamilyCheckpoint.Shape s) {
    return TinyFamilyCheckpoint.create("bert",
        new TinyFamilyCheckpoint.Shape(s.vocab(), s.hidden(), s.hidden(), s.layers(), s.heads(), s.intermediate(),
            s.positions()), 99);
  }

  private void assertSameRun(TinyFamilyCheckpoint family, TinyFamilyCheckpoint bert) {
    ReferenceForward.Result f = ReferenceForward.run(family.writeTo(dir.resolve(family.modelType())), IDS);
    ReferenceForward.Result b = ReferenceForward.run(bert.writeTo(dir.resolve("bert")), IDS);
    assertThat(f.attention()).hasSameDimensionsAs(b.attention());
    for (int l = 0; l < b.attention().length; l++) {
      for (int h = 0; h < b.attention()[l].length; h++) {
        for (int q = 0; q < IDS.length; q++) {
          assertThat(f.attention()[l][h][q]).as("layer %d head %d query %d", l, h, q)
              .containsExactly(b.attention()[l][h][q], within(1e-12));
        }
      }
    }
    for (int t = 0; t < IDS.length; t++) {
      assertThat(f.lastHidden()[t]).as("hidden %d", t).containsExactly(b.lastHidden()[t], within(1e-12));
      assertThat(f.logits()[t]).as("logits %d", t).containsExactly(b.logits()[t], within(1e-12));
    }
  }

  private static void copy(TinyFamilyCheckpoint from, String fromName, TinyFamilyCheckpoint to, String toName) {
    float[] src = from.tensor(fromName);
    to.edit(toName, dst -> {
      assertThat(dst).as(toName + " <- " + fromName).hasSameSizeAs(src);
      System.arraycopy(src, 0, dst, 0, src.length);
    });
  }

  private static void copyLinear(TinyFamilyCheckpoint from, String fromName, TinyFamilyCheckpoint to, String toName) {
    copy(from, fromName + ".weight", to, toName + ".weight");
    copy(from, fromName + ".bias", to, toName + ".bias");
  }

  private static void copyLayerNorm(TinyFamilyCheckpoint from, String fromName, TinyFamilyCheckpoint to, String toName) {
    copyLinear(from, fromName, to, toName);
  }
}
