package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDArray;
import io.headscope.analysis.heads.cnn.CnnClassifier;
import io.headscope.analysis.heads.cnn.MapImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The plain-Java forward pass of {@link CnnClassifier} against DJL's forward pass of the network
 * {@link CnnTraining} trains: the same weights must give the same outputs, or the shipped file would
 * not classify as the cross-validation measured. The weights are random, biases included (DJL starts
 * biases at zero, which would leave the bias terms untested), and the images random in [0, 1).
 */
class CnnClassifierTest {
  private static float[][][][] images(int n, long seed) {
    Random rnd = new Random(seed);
    float[][][][] out = new float[n][MapImage.CHANNELS][MapImage.SIZE][MapImage.SIZE];
    for (float[][][] im : out) {
      for (float[][] ch : im) {
        for (float[] row : ch) {
          for (int j = 0; j < row.length; j++) {
            row[j] = rnd.nextFloat();
          }
        }
      }
    }
    return out;
  }

  @Test
  void plainJavaLogitsEqualDjlsOnARandomNetwork() throws Exception {
    float[][][][] x = images(6, 3);
    List<Integer> all = IntStream.range(0, x.length).boxed().toList();
    for (int[] filters : new int[][] {{4, 6}, CnnTraining.FILTERS}) {
      try (CnnTraining.Run r = new CnnTraining.Run(5, filters)) {
        Random rnd = new Random(9);
        for (var p : r.block.getParameters()) {
          NDArray a = p.getValue().getArray();
          float[] v = new float[(int) a.size()];
          // scaled by the fan-in as trained weights are, so the outputs stay near 1 and float32 rounding
          // in DJL stays far below the tolerance; a wrong index or a missed term would not
          long[] s = a.getShape().getShape();
          double sd = s.length == 1 ? 0.1 : 1 / Math.sqrt(a.size() / (double) s[0]);
          for (int k = 0; k < v.length; k++) {
            v[k] = (float) (rnd.nextGaussian() * sd);
          }
          a.set(v);
        }
        double[][] djl = r.outputs(x, all, false);
        CnnClassifier c = r.classifier("random");
        for (int i = 0; i < x.length; i++) {
          double[] mine = c.logits(x[i]);
          assertThat(mine).hasSize(HeadPattern.values().length);
          for (int k = 0; k < mine.length; k++) {
            assertThat(mine[k]).as("filters %s, image %d, class %d", java.util.Arrays.toString(filters), i, k)
                .isCloseTo(djl[i][k], within(1e-5));
          }
          // outputs that differ between images, or equality would say little
          assertThat(mine[0]).isNotEqualTo(c.logits(x[(i + 1) % x.length])[0]);
        }
        // the file format: what is written reads back to the same network
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        c.write(bytes);
        CnnClassifier back = CnnClassifier.read(new ByteArrayInputStream(bytes.toByteArray()));
        assertThat(back.description()).isEqualTo("random");
        assertThat(back.logits(x[0])).containsExactly(c.logits(x[0]));
      }
    }
  }
}
