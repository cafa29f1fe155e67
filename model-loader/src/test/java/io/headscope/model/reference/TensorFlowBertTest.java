package io.headscope.model.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sanity of the TensorFlow reference itself, before anything is compared against it. */
@Tag("full-model")
class TensorFlowBertTest {
  static TensorFlowBert tf;
  static Map<String, Integer> vocab;

  @BeforeAll
  static void open() throws IOException {
    tf = TensorFlowBert.openEmbedded("uncased");
    vocab = new HashMap<>();
    List<String> lines = Files.readAllLines(tf.vocabulary(), StandardCharsets.UTF_8);
    for (int id = 0; id < lines.size(); id++) {
      vocab.putIfAbsent(lines.get(id), id);
    }
  }

  @AfterAll
  static void close() {
    tf.close();
  }

  static int[] ids(String... tokens) {
    int[] out = new int[tokens.length];
    for (int i = 0; i < tokens.length; i++) {
      out[i] = vocab.get(tokens[i]);
    }
    return out;
  }

  @Test
  void vocabularyHasBertBaseUncasedIds() {
    assertThat(vocab).hasSize(30522);
    assertThat(ids("[PAD]", "[CLS]", "[SEP]", "[MASK]", "hello", "world"))
        .containsExactly(0, 101, 102, 103, 7592, 2088);
  }

  @Test
  void everyMapIsRowStochasticAndTrimmedToTheInput() {
    int[] hello = ids("[CLS]", "hello", "world", "[SEP]");
    TensorFlowBert.Result r = tf.run(new int[][] {hello}, null);

    assertThat(tf.layers()).isEqualTo(12);
    assertThat(tf.heads()).isEqualTo(12);
    assertThat(r.attention()).hasDimensions(1, 12);
    assertThat(r.sequenceOutput()).hasDimensions(1, 4);
    assertThat(r.sequenceOutput()[0][3]).hasSize(768);
    for (float[][][] layer : r.attention()[0]) {
      assertThat(layer).hasNumberOfRows(12);
      for (float[][] map : layer) {
        assertThat(map).hasDimensions(4, 4);
        for (float[] row : map) {
          double sum = 0;
          for (float p : row) {
            assertThat(p).isBetween(0f, 1f);
            sum += p;
          }
          assertThat(sum).isCloseTo(1.0, offset(1e-5));
        }
      }
    }
    for (float[] h : r.sequenceOutput()[0]) {
      for (float x : h) {
        assertThat(Float.isFinite(x)).isTrue();
      }
    }
  }

  @Test
  void batchingInputsOfDifferentLengthsGivesTheSameResultsAsRunningEachAlone() {
    int[] a = ids("[CLS]", "hello", "world", "[SEP]");
    int[] b =
        ids(
            "[CLS]", "the", "cat", "sat", "on", "the", "mat", ".", "[SEP]", "it", "was", "[MASK]",
            ".", "[SEP]");
    int[] segB = new int[b.length];
    for (int i = 9; i < b.length; i++) {
      segB[i] = 1;
    }
    TensorFlowBert.Result both = tf.run(new int[][] {a, b}, new int[][] {new int[a.length], segB});
    TensorFlowBert.Result aloneA = tf.run(new int[][] {a}, null);
    TensorFlowBert.Result aloneB = tf.run(new int[][] {b}, new int[][] {segB});

    assertThat(both.attention()[1][0][0]).hasDimensions(b.length, b.length);
    assertThat(maxDiff(both, 0, aloneA)).isLessThan(1e-5);
    assertThat(maxDiff(both, 1, aloneB)).isLessThan(1e-5);
    assertThat(both.sequenceOutput()[1]).hasDimensions(b.length, 768);
    for (int t = 0; t < b.length; t++) {
      assertThat(both.sequenceOutput()[1][t])
          .containsExactly(aloneB.sequenceOutput()[0][t], within(1e-4f));
    }
    // and the segment ids matter: the same tokens as one segment give different maps
    TensorFlowBert.Result oneSegment = tf.run(new int[][] {b}, null);
    assertThat(maxDiff(aloneB, 0, oneSegment)).isGreaterThan(1e-3);
  }

  @Test
  void rejectsInputsTheGraphCannotTake() {
    assertThatThrownBy(() -> tf.run(new int[][] {new int[129]}, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> tf.run(new int[][] {new int[0]}, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> tf.run(new int[][] {{101, 102}}, new int[][] {{0}}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void extractionRefusesEntriesOutsideItsFolder(@TempDir Path tmp) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
      zip.putNextEntry(new ZipEntry("ok.txt"));
      zip.write(1);
      zip.putNextEntry(new ZipEntry("../evil.txt"));
      zip.write(2);
    }
    Path into = Files.createDirectory(tmp.resolve("into"));
    assertThatThrownBy(
            () -> TensorFlowBert.unzip(new ByteArrayInputStream(bytes.toByteArray()), into))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("../evil.txt");
    assertThat(tmp.resolve("evil.txt")).doesNotExist();
  }

  /**
   * Largest difference of input {@code i} of {@code batch} against the only input of {@code alone}.
   */
  static double maxDiff(TensorFlowBert.Result batch, int i, TensorFlowBert.Result alone) {
    double m = 0;
    float[][][][] x = batch.attention()[i];
    float[][][][] y = alone.attention()[0];
    for (int l = 0; l < x.length; l++) {
      for (int h = 0; h < x[l].length; h++) {
        assertThat(x[l][h]).hasDimensions(y[l][h].length, y[l][h].length);
        for (int q = 0; q < x[l][h].length; q++) {
          for (int k = 0; k < x[l][h][q].length; k++) {
            m = Math.max(m, Math.abs(x[l][h][q][k] - y[l][h][q][k]));
          }
        }
      }
    }
    return m;
  }
}
