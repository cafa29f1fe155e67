package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kobayashi's layer-level norm, checked against the definition computed directly in Java. */
class LayerNormMapTest {
  @TempDir Path dir;

  @Test
  void gramShortcutEqualsTheNormOfTheSummedHeadVectors() {
    TinyBert tiny = TinyBert.create(2, 4, 5);
    try (BertModel model = BertModel.load(tiny.writeTo(dir.resolve("m")))) {
      Encoding input = model.encode("the cat sat on the mat.", null);
      float[][][] maps = model.layerNormMaps(List.of(input), HeadMask.NONE).get(0);
      // Layer 0 by hand: x = embeddings, v = x W_V^T + b_V, f^h_j = v^h_j W_O^h, N_ij = ||sum_h A^h_ij f^h_j||
      var trace = model.trace(input);
      int n = input.length();
      int d = 16;
      int dh = 4;
      float[][] x = HandCheckableModelTestSupport.embeddings(tiny, input, d);
      float[] wv = tiny.tensor("encoder.layer.0.attention.self.value.weight");
      float[] bv = tiny.tensor("encoder.layer.0.attention.self.value.bias");
      float[] wo = tiny.tensor("encoder.layer.0.attention.output.dense.weight");
      double[][][] f = new double[4][n][d];
      for (int j = 0; j < n; j++) {
        double[] v = new double[d];
        for (int o = 0; o < d; o++) {
          v[o] = bv[o];
          for (int k = 0; k < d; k++) {
            v[o] += x[j][k] * wv[o * d + k];
          }
        }
        for (int h = 0; h < 4; h++) {
          for (int o = 0; o < d; o++) {
            for (int k = h * dh; k < (h + 1) * dh; k++) {
              f[h][j][o] += v[k] * wo[o * d + k];
            }
          }
        }
      }
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          double[] sum = new double[d];
          for (int h = 0; h < 4; h++) {
            for (int o = 0; o < d; o++) {
              sum[o] += trace.attention()[0][h][i][j] * f[h][j][o];
            }
          }
          double norm = Math.sqrt(Arrays.stream(sum).map(s -> s * s).sum());
          assertThat((double) maps[0][i][j]).isCloseTo(norm, within(1e-4 * Math.max(1, norm)));
        }
      }
      assertThat(maps[1]).hasDimensions(n, n);
    }
  }
}
