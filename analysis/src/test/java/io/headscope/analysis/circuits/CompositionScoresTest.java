package io.headscope.analysis.circuits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.engine.CompositionNorms.Mode;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Composition scores against the definition computed the long way: the d x d matrices {@code A = W_V W_O},
 * {@code B} and their product {@code A B} formed in double from the checkpoint's own tensors (read here
 * with this test's index arithmetic, not the engine's), Frobenius norms summed entry by entry.
 */
class CompositionScoresTest {
  @TempDir static Path dir;

  /**
   * The engine works in float32: each entry of a product of length n <= d carries a relative error under
   * n eps (eps = 2^-24) of the sum of its terms' sizes, and the Cholesky factors of the dh x dh Gram matrices
   * are backward stable (relative error about dh eps). For d = 16 that is well under 1e-6 of the norms; the
   * scores are below 1, so 1e-5 leaves a factor of ten for the accumulation.
   */
  private static final double FLOAT32_BOUND = 1e-5;

  @Test
  void everyPairEqualsTheFullProductsInDoubleOnATinyBert() {
    TinyBert tiny = TinyBert.create(3, 4, 43);
    try (BertModel model = BertModel.load(tiny.writeTo(dir.resolve("bert")))) {
      int layers = 3;
      int h = 4;
      int d = 16;
      Map<Mode, CompositionResult> got = CompositionScores.of(model, EnumSet.allOf(Mode.class));
      double[][][][] wq = new double[layers][][][];
      double[][][][] wk = new double[layers][][][];
      double[][][][] wv = new double[layers][][][];
      double[][][][] wo = new double[layers][][][];
      for (int l = 0; l < layers; l++) {
        String p = "encoder.layer." + l + ".attention.";
        wq[l] = inHeads(tiny.tensor(p + "self.query.weight"), h, d);
        wk[l] = inHeads(tiny.tensor(p + "self.key.weight"), h, d);
        wv[l] = inHeads(tiny.tensor(p + "self.value.weight"), h, d);
        wo[l] = outHeads(tiny.tensor(p + "output.dense.weight"), h, d);
      }
      checkAllPairs(got, wq, wk, wv, wo, layers, h);
    }
  }

  /** GPT-2 stores the fused c_attn as Conv1D (in, out): W_Q's columns are the first d outputs, already row-vector. */
  @Test
  void aGpt2sFusedConv1dWeightsGiveTheSameScoresAsTheirFullProducts() throws Exception {
    ModelFiles files = FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 7);
    try (BertModel model = BertModel.load(files); Safetensors st = Safetensors.open(files.weights())) {
      int layers = model.config().numHiddenLayers();
      int h = model.config().numAttentionHeads();
      int d = model.config().hiddenSize();
      int r = d / h;
      double[][][][] wq = new double[layers][h][][];
      double[][][][] wk = new double[layers][h][][];
      double[][][][] wv = new double[layers][h][][];
      double[][][][] wo = new double[layers][h][][];
      for (int l = 0; l < layers; l++) {
        float[] attn = st.readFloat("transformer.h." + l + ".attn.c_attn.weight").data(); // (d, 3d)
        float[] proj = st.readFloat("transformer.h." + l + ".attn.c_proj.weight").data(); // (d, d): z row times it
        for (int hh = 0; hh < h; hh++) {
          wq[l][hh] = new double[d][r];
          wk[l][hh] = new double[d][r];
          wv[l][hh] = new double[d][r];
          wo[l][hh] = new double[r][d];
          for (int i = 0; i < d; i++) {
            for (int a = 0; a < r; a++) {
              wq[l][hh][i][a] = attn[i * 3 * d + hh * r + a];
              wk[l][hh][i][a] = attn[i * 3 * d + d + hh * r + a];
              wv[l][hh][i][a] = attn[i * 3 * d + 2 * d + hh * r + a];
              wo[l][hh][a][i] = proj[(hh * r + a) * d + i];
            }
          }
        }
      }
      checkAllPairs(CompositionScores.of(model, EnumSet.allOf(Mode.class)), wq, wk, wv, wo, layers, h);
    }
  }

  /**
   * Grouped-query decoders (a Llama with 2 key/value heads of 4, a multi-query Gemma): query head h reads key/value
   * head {@code h / (H / K)}, so its W_K and W_V are that head's rows of {@code k_proj} and {@code v_proj}, read here
   * from the values the test checkpoint stores (not through the engine's fused weight). Rotary positions are not in
   * the weights, as in TransformerLens's scores for rotary models.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"llama", "gemma"})
  void aGroupedQueryDecodersHeadsReadTheirGroupsKeysAndValues(String type) {
    Path folder = io.headscope.model.decoders.DecoderFolders.write(type, dir.resolve(type), 29);
    try (BertModel model = BertModel.load(new io.headscope.model.repository.ModelRepository(dir.resolve("cache"))
        .folder(folder))) {
      int layers = model.config().numHiddenLayers();
      int h = model.config().numAttentionHeads();
      int kv = model.config().parts().keyValueHeads();
      int d = model.config().hiddenSize();
      int r = d / h;
      assertThat(kv).as("grouped").isLessThan(h);
      double[][][][] wq = new double[layers][h][][];
      double[][][][] wk = new double[layers][h][][];
      double[][][][] wv = new double[layers][h][][];
      double[][][][] wo = new double[layers][h][][];
      for (int l = 0; l < layers; l++) {
        String p = "model.layers." + l + ".self_attn.";
        double[] q = io.headscope.model.decoders.DecoderFolders.weight(type, 29, p + "q_proj.weight"); // (H r, d)
        double[] k = io.headscope.model.decoders.DecoderFolders.weight(type, 29, p + "k_proj.weight"); // (K r, d)
        double[] v = io.headscope.model.decoders.DecoderFolders.weight(type, 29, p + "v_proj.weight");
        double[] o = io.headscope.model.decoders.DecoderFolders.weight(type, 29, p + "o_proj.weight"); // (d, H r)
        for (int hh = 0; hh < h; hh++) {
          int g = hh / (h / kv);
          wq[l][hh] = new double[d][r];
          wk[l][hh] = new double[d][r];
          wv[l][hh] = new double[d][r];
          wo[l][hh] = new double[r][d];
          for (int i = 0; i < d; i++) {
            for (int a = 0; a < r; a++) {
              wq[l][hh][i][a] = q[(hh * r + a) * d + i];
              wk[l][hh][i][a] = k[(g * r + a) * d + i];
              wv[l][hh][i][a] = v[(g * r + a) * d + i];
              wo[l][hh][a][i] = o[i * h * r + hh * r + a];
            }
          }
        }
      }
      checkAllPairs(CompositionScores.of(model, EnumSet.allOf(Mode.class)), wq, wk, wv, wo, layers, h);
    }
  }

  @Test
  void theCsvHasOneRowPerPairWithTheSenderInAnEarlierLayerOneBased() throws Exception {
    try (BertModel model = BertModel.load(TinyBert.create(3, 2, 5).writeTo(dir.resolve("csv")))) {
      CompositionResult r = CompositionScores.of(model, Mode.K);
      StringWriter w = new StringWriter();
      CompositionCsv.write(r, w);
      String[] lines = w.toString().split("\n");
      assertThat(lines[0]).isEqualTo("sender_layer,sender_head,receiver_layer,receiver_head,score");
      // layer pairs (1,2), (1,3), (2,3), each 2 x 2 heads
      assertThat(lines).hasSize(1 + 3 * 4);
      assertThat(lines[1]).startsWith("1,1,2,1,");
      assertThat(lines[12]).startsWith("2,2,3,2,");
      assertThat(Double.parseDouble(lines[12].split(",")[4])).isCloseTo(r.score(1, 1, 2, 1), within(1e-9));
    }
  }

  @Test
  void randomMatricesScoreAboutOneOverRootD() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 4, 9).writeTo(dir.resolve("base")))) {
      CompositionScores.Baseline b = CompositionScores.baseline(model, Mode.Q, 8, 0);
      assertThat(b.pairs()).isEqualTo(8 * 16);
      assertThat(b.approximate()).isCloseTo(0.25, within(1e-12)); // d = 16
      // E||AB||^2 / (E||A||^2 E||B||^2) = 1/d is a ratio of expectations, not E[score]: only its size is
      // claimed. The same seed gives the same numbers.
      assertThat(b.mean()).isBetween(0.5 / 4, 2.0 / 4);
      assertThat(CompositionScores.baseline(model, Mode.Q, 8, 0)).isEqualTo(b);
    }
  }

  private static void checkAllPairs(Map<Mode, CompositionResult> got, double[][][][] wq, double[][][][] wk,
      double[][][][] wv, double[][][][] wo, int layers, int h) {
    int checked = 0;
    double largest = 0;
    for (int l1 = 0; l1 < layers; l1++) {
      for (int i = 0; i < h; i++) {
        double[][] a = mul(wv[l1][i], wo[l1][i]);
        for (int l2 = 0; l2 < layers; l2++) {
          for (int j = 0; j < h; j++) {
            double[][] qk = mul(wq[l2][j], transpose(wk[l2][j]));
            Map<Mode, double[][]> right = Map.of(Mode.Q, qk, Mode.K, transpose(qk), Mode.V, mul(wv[l2][j], wo[l2][j]));
            for (Mode m : Mode.values()) {
              double want = l1 < l2 ? norm(mul(a, right.get(m))) / (norm(a) * norm(right.get(m))) : 0;
              assertThat(got.get(m).score(l1, i, l2, j)).as("%s %d-%d -> %d-%d", m, l1 + 1, i + 1, l2 + 1, j + 1)
                  .isCloseTo(want, within(FLOAT32_BOUND));
              largest = Math.max(largest, want);
              checked++;
            }
          }
        }
      }
    }
    assertThat(checked).isEqualTo(3 * layers * h * layers * h);
    assertThat(largest).as("the scores are not all 0").isGreaterThan(0.05);
  }

  /** Head h's (d, dh) block of an (out, in) projection read by x: W^h[i][a] = w[h dh + a][i]. */
  private static double[][][] inHeads(float[] w, int h, int d) {
    int r = d / h;
    double[][][] out = new double[h][d][r];
    for (int hh = 0; hh < h; hh++) {
      for (int i = 0; i < d; i++) {
        for (int a = 0; a < r; a++) {
          out[hh][i][a] = w[(hh * r + a) * d + i];
        }
      }
    }
    return out;
  }

  /** Head h's (dh, d) block of the (out, in) output projection: W_O^h[a][j] = w[j][h dh + a]. */
  private static double[][][] outHeads(float[] w, int h, int d) {
    int r = d / h;
    double[][][] out = new double[h][r][d];
    for (int hh = 0; hh < h; hh++) {
      for (int a = 0; a < r; a++) {
        for (int j = 0; j < d; j++) {
          out[hh][a][j] = w[j * d + hh * r + a];
        }
      }
    }
    return out;
  }

  static double[][] mul(double[][] a, double[][] b) {
    double[][] c = new double[a.length][b[0].length];
    for (int i = 0; i < a.length; i++) {
      for (int t = 0; t < b.length; t++) {
        for (int j = 0; j < b[0].length; j++) {
          c[i][j] += a[i][t] * b[t][j];
        }
      }
    }
    return c;
  }

  static double[][] transpose(double[][] a) {
    double[][] t = new double[a[0].length][a.length];
    for (int i = 0; i < a.length; i++) {
      for (int j = 0; j < a[0].length; j++) {
        t[j][i] = a[i][j];
      }
    }
    return t;
  }

  static double norm(double[][] a) {
    double s = 0;
    for (double[] row : a) {
      for (double x : row) {
        s += x * x;
      }
    }
    return Math.sqrt(s);
  }
}
