package io.headscope.analysis.lens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectLogitAttributionTest {
  @TempDir Path dir;

  @Test
  void gpt2sComponentsSumToTheLogitDifferenceLessTheFrozenLayerNormsShift() {
    ModelFiles files = FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 13);
    try (BertModel model = BertModel.load(files)) {
      Encoding in = model.encode("the cat sat on the", null);
      long t = model.tokenizer().singleTokenId("ca");
      long c = model.tokenizer().singleTokenId("Ġ");
      long live = model.liveNativeArrays();
      List<DlaRow> rows = new DirectLogitAttribution(model).run(in, t, c);
      assertThat(model.liveNativeArrays()).as("native arrays left behind").isEqualTo(live);
      int layers = model.config().numHiddenLayers();
      int heads = model.config().numAttentionHeads();
      assertThat(rows).hasSize(1 + layers * (heads + 2));
      double sum = rows.stream().mapToDouble(DlaRow::difference).sum();
      // the logit difference from the model's own forward pass: log p(t) - log p(c)
      int last = in.length() - 1;
      float[] lp = model.run(RunRequest.of(in).read(Readouts.none().withLogProbs(new int[] {last})))
          .logProbs()[0][0];
      double logitDiff = lp[(int) t] - lp[(int) c];
      // the offset the frozen LayerNorm leaves out, (W_U[t] - W_U[c]) . beta, from the checkpoint itself
      double offset = 0;
      try (Safetensors st = Safetensors.open(files.weights())) {
        float[] wte = st.readFloat("transformer.wte.weight").data();
        float[] beta = st.readFloat("transformer.ln_f.bias").data();
        int d = beta.length;
        for (int j = 0; j < d; j++) {
          offset += (wte[(int) t * d + j] - wte[(int) c * d + j]) * (double) beta[j];
        }
      }
      assertThat(sum).isCloseTo(logitDiff - offset, within(1e-4));
    }
  }

  @Test
  void aPostLayerNormModelIsRefusedInOneLine() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 2, 1).writeTo(dir.resolve("bert")))) {
      Encoding in = model.encode("the [MASK] sat", null);
      assertThatThrownBy(() -> new DirectLogitAttribution(model).run(in, 5, 6))
          .isInstanceOf(HeadScopeException.class).hasMessageContaining("pre-LayerNorm");
    }
  }
}
