package io.headscope.analysis.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.core.BertConfig;
import io.headscope.model.BertModel;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layer-compatibility matrix against checkpoints built by surgery: feeding h_i into layer j is the
 * same as a plain pass of a model whose layers are the original's 1..i then j..L.
 */
class LayerCompatibilityTest {
  @TempDir Path dir;
  static final int L = 3;

  static final String[] LAYER_TENSORS = {"attention.self.query.weight", "attention.self.query.bias",
      "attention.self.key.weight", "attention.self.key.bias", "attention.self.value.weight",
      "attention.self.value.bias", "attention.output.dense.weight", "attention.output.dense.bias",
      "attention.output.LayerNorm.weight", "attention.output.LayerNorm.bias", "intermediate.dense.weight",
      "intermediate.dense.bias", "output.dense.weight", "output.dense.bias", "output.LayerNorm.weight",
      "output.LayerNorm.bias"};
  static final String[] OTHER_TENSORS = {"embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
      "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias",
      "cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
      "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.LayerNorm.bias", "cls.predictions.bias"};

  /** A checkpoint whose layers are {@code order} (0-based layers of the original), everything else the same. */
  static TinyBert stitched(TinyBert original, int[] order) {
    BertConfig c = original.config();
    TinyBert t = TinyBert.create(new BertConfig(c.vocabSize(), c.hiddenSize(), order.length, c.numAttentionHeads(),
        c.intermediateSize(), c.hiddenAct(), c.maxPositionEmbeddings(), c.typeVocabSize(), c.layerNormEps(),
        List.of()), 99);
    for (String name : OTHER_TENSORS) {
      float[] src = original.tensor(name);
      t.edit(name, dst -> System.arraycopy(src, 0, dst, 0, src.length));
    }
    for (int k = 0; k < order.length; k++) {
      for (String name : LAYER_TENSORS) {
        float[] src = original.tensor("encoder.layer." + order[k] + "." + name);
        t.edit("encoder.layer." + k + "." + name, dst -> System.arraycopy(src, 0, dst, 0, src.length));
      }
    }
    return t;
  }

  @Test
  void everyEntryEqualsAPlainPassOfTheStitchedCheckpoint() {
    TinyBert tiny = TinyBert.create(L, 4, 31);
    try (BertModel model = BertModel.load(tiny.writeTo(dir.resolve("m")))) {
      Encoding e = model.encode("the [MASK] sat on the [MASK] .", null);
      int[] positions = {2, 6};
      LayerCompatibility c = LayerCompatibility.run(model, List.of(e), 0, ProgressListener.NONE, () -> false);
      float[][] intact = model.run(RunRequest.of(e).read(Readouts.none().withLogProbs(positions))).logProbs()[0];
      long[] targets = AblationSweep.topTokens(intact);
      double intactLp = (intact[0][(int) targets[0]] + intact[1][(int) targets[1]]) / 2.0;
      assertThat(c.intact()).isCloseTo(intactLp, within(1e-6));
      for (int i = 0; i <= L; i++) {
        for (int j = 1; j <= L; j++) {
          // layers 1..i, then j..L (1-based), as 0-based indices
          int[] order = new int[i + (L - j + 1)];
          for (int k = 0; k < i; k++) {
            order[k] = k;
          }
          for (int k = j; k <= L; k++) {
            order[i + k - j] = k - 1;
          }
          double expected;
          try (BertModel surgery = BertModel.load(stitched(tiny, order).writeTo(dir.resolve("s" + i + j)))) {
            float[][] lp = surgery.run(RunRequest.of(e).read(Readouts.none().withLogProbs(positions))).logProbs()[0];
            expected = (lp[0][(int) targets[0]] + lp[1][(int) targets[1]]) / 2.0;
          }
          assertThat(c.logprob()[i][j - 1]).as("h_%d into layer %d", i, j).isCloseTo(expected, within(1e-5));
          if (j == i + 1) {
            assertThat(c.logprob()[i][j - 1]).as("the diagonal is the intact model").isCloseTo(intactLp, within(1e-5));
            assertThat(c.top1()[i][j - 1]).isEqualTo(1.0);
          }
        }
      }
    }
  }

  @Test
  void aCellsPredictionsAreThoseOfThePlainPassOfTheStitchedCheckpoint() {
    TinyBert tiny = TinyBert.create(L, 4, 31);
    try (BertModel model = BertModel.load(tiny.writeTo(dir.resolve("m")))) {
      Encoding e = model.encode("the [MASK] sat on the [MASK] .", null);
      int[] positions = {2, 6};
      // h_1 into layer 3: layers 1, then 3 (layer 2 skipped)
      StitchedPredictions s = StitchedPredictions.of(model, e, 0, 1, 3, 5);
      assertThat(s.positions()).containsExactly(positions);
      float[][] intact = model.run(RunRequest.of(e).read(Readouts.none().withLogProbs(positions))).logProbs()[0];
      float[][] lp;
      try (BertModel surgery = BertModel.load(stitched(tiny, new int[] {0, 2}).writeTo(dir.resolve("s13")))) {
        lp = surgery.run(RunRequest.of(e).read(Readouts.none().withLogProbs(positions))).logProbs()[0];
      }
      for (int p = 0; p < positions.length; p++) {
        long top = AblationSweep.topTokens(intact)[p];
        assertThat(s.targets()[p]).isEqualTo(model.tokenizer().vocabToken(top));
        assertThat(s.intact().get(p).get(0).token()).isEqualTo(model.tokenizer().vocabToken(top));
        assertThat(s.stitched().get(p)).hasSize(5);
        double previous = 1;
        for (StitchedPredictions.Guess g : s.stitched().get(p)) {
          int id = vocabId(model, g.token());
          assertThat(g.probability()).isCloseTo(Math.exp(lp[p][id]), within(1e-5)).isLessThanOrEqualTo(previous);
          previous = g.probability();
        }
        // nothing outside the five beats the fifth
        int fifth = vocabId(model, s.stitched().get(p).get(4).token());
        long above = 0;
        for (float v : lp[p]) {
          above += v > lp[p][fifth] ? 1 : 0;
        }
        assertThat(above).isLessThanOrEqualTo(4);
      }
    }
  }

  private static int vocabId(BertModel model, String token) {
    for (int id = 0; id < model.tokenizer().vocabSize(); id++) {
      if (model.tokenizer().vocabToken(id).equals(token)) {
        return id;
      }
    }
    throw new AssertionError(token);
  }
}
