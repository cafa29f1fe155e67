package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The summariser's block maxima (the thumbnails' columns) and row maxima (the entropy's {@code m}) against a
 * brute-force max over each block and each row in Java. A max is exact whichever way it is taken, so the
 * expected values are the same floats, not within a bound. The lengths cover the one-pool case (128 blocks of
 * 16 keys at 2,048 tokens; a chunk of a causal layer reading its first 512 or 1,536 keys), blocks of one key (an
 * input shorter than the thumbnail) and blocks of two sizes (300 keys in 128 blocks), where each block is
 * reduced on its own. The scores hold the causal mask's -10000 and negative values, as a chunk's do.
 */
class HeadSummariserBlocksTest {
  @Test
  void rowMaximaAreEachRowsLargestScoreAtEveryLengthAndKeyCount() {
    check(2048, 128, 512);
    check(2048, 128, 1536);
    check(2048, 128, 2048);
    check(100, 100, 100); // shorter than the thumbnail: blocks of one key
    check(300, 128, 300); // 300 keys in 128 blocks of 2 or 3: one reduction per block
  }

  private static void check(int len, int g, int keys) {
    int c = 2;
    int rows = 24;
    float[] values = new float[c * rows * keys];
    SplittableRandom random = new SplittableRandom(len * 31L + keys);
    for (int i = 0; i < values.length; i++) {
      values[i] = random.nextInt(10) == 0 ? -10000f + (float) random.nextGaussian() : (float) (random.nextGaussian() * 4 - 3);
    }
    int[] start = HeadSummariser.blockStarts(len, g);
    try (NDManager m = NDManager.newBaseManager(ai.djl.Device.cpu(), "PyTorch")) {
      NDArray s = m.create(values, new Shape(c, rows, keys));
      float[] rowMax = HeadSummariser.rowMax(s, start, keys).toFloatArray();
      NDArray blocks = HeadSummariser.blockMax(s, start, 0, keys, 2);
      int met = (int) ((long) (keys - 1) * g / len) + 1; // the blocks keys 0 .. keys - 1 meet
      assertThat(blocks.getShape()).isEqualTo(new Shape(c, rows, met));
      float[] blockMax = blocks.toFloatArray();
      for (int r = 0; r < c * rows; r++) {
        float top = Float.NEGATIVE_INFINITY;
        for (int k = 0; k < met; k++) {
          float most = Float.NEGATIVE_INFINITY;
          for (int j = start[k]; j < Math.min(start[k + 1], keys); j++) {
            most = Math.max(most, values[r * keys + j]);
          }
          assertThat(blockMax[r * met + k]).as("len %d keys %d row %d block %d", len, keys, r, k).isEqualTo(most);
          top = Math.max(top, most);
        }
        assertThat(rowMax[r]).as("len %d keys %d row %d", len, keys, r).isEqualTo(top);
      }
    }
  }
}
