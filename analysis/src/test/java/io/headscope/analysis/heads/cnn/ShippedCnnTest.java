package io.headscope.analysis.heads.cnn;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.heads.HeadPattern;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The shipped CNN ({@code TrainCnn}'s output in the resources module) reads, and calls the textbook
 * shapes what they are at both ends of the length range: a map that is nothing but its diagonal, and
 * one where every token attends to [CLS]. These are cleaner than any labelled map; a network that missed
 * them would have learnt something other than the categories (or the file would be another network's).
 */
class ShippedCnnTest {
  private static float[][] diagonal(int n) {
    float[][] m = new float[n][n];
    for (int i = 0; i < n; i++) {
      Arrays.fill(m[i], 0.05f / (n - 1));
      m[i][i] = 0.95f;
    }
    return m;
  }

  private static float[][] cls(int n) {
    float[][] m = new float[n][n];
    for (float[] row : m) {
      Arrays.fill(row, 0.05f / (n - 1));
      row[0] = 0.95f;
    }
    return m;
  }

  /** [CLS], words, [SEP]: the marks the network's fourth channel reads. */
  private static java.util.List<String> tokens(int n) {
    java.util.List<String> t = new java.util.ArrayList<>();
    t.add("[CLS]");
    for (int i = 1; i < n - 1; i++) {
      t.add("word");
    }
    t.add("[SEP]");
    return t;
  }

  @Test
  void theShippedNetworkReadsAndSaysDiagonalAndVerticalAtEveryLength() {
    CnnClassifier c = CnnClassifier.shipped();
    assertThat(c.description()).contains("hand-labelled maps");
    assertThat(c.channels()).isEqualTo(MapImage.CHANNELS + 1);
    for (int n : new int[] {12, 40, 200, 512}) {
      assertThat(c.classify(diagonal(n), null, tokens(n)).category()).as("diagonal, %d tokens", n).isEqualTo(HeadPattern.DIAGONAL);
      assertThat(c.classify(cls(n), null, tokens(n)).category()).as("[CLS] column, %d tokens", n).isEqualTo(HeadPattern.VERTICAL);
    }
  }
}
