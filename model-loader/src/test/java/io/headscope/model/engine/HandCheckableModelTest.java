package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-layer, two-head model whose numbers can be worked out by hand: queries and keys are zero,
 * so every head attends uniformly (1/n); values and the output projection are the identity, so
 * {@code ||f^h(x_j)||} is the norm of head h's slice of the embedding of token j.
 */
class HandCheckableModelTest {
  @TempDir Path dir;

  @Test
  void uniformHeadsAndIdentityValuesGiveTheNormsOfEmbeddingSlices() {
    int d = 8;
    TinyBert tiny = TinyBert.create(1, 2, 7);
    String p = "encoder.layer.0.attention.";
    for (String zero : new String[] {"self.query.weight", "self.query.bias", "self.key.weight",
        "self.key.bias", "self.value.bias", "output.dense.bias"}) {
      tiny.edit(p + zero, w -> Arrays.fill(w, 0f));
    }
    for (String identity : new String[] {"self.value.weight", "output.dense.weight"}) {
      tiny.edit(p + identity, w -> {
        Arrays.fill(w, 0f);
        for (int i = 0; i < d; i++) {
          w[i * d + i] = 1f;
        }
      });
    }
    try (BertModel model = BertModel.load(tiny.writeTo(dir.resolve("hand")))) {
      Encoding input = model.encode("the cat sat.", null);
      AttentionTrace t = model.trace(input);
      int n = input.length();
      for (float[][] map : t.attention()[0]) {
        for (float[] row : map) {
          for (float v : row) {
            assertThat(v).isCloseTo(1f / n, within(1e-7f));
          }
        }
      }
      for (int j = 0; j < n; j++) {
        float[] e = HandCheckableModelTestSupport.embedding(tiny, input, j, d);
        for (int h = 0; h < 2; h++) {
          double norm = 0;
          for (int k = h * 4; k < h * 4 + 4; k++) {
            norm += e[k] * e[k];
          }
          assertThat((double) t.valueNorms()[0][h][j]).isCloseTo(Math.sqrt(norm), within(1e-5));
        }
      }
    }
  }

}
