package io.headscope.model.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.MaskPrediction;
import io.headscope.model.reference.TensorFlowBert;
import io.headscope.model.testing.FullModel;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The engine against Google's own TensorFlow graph of the same weights (TensorFlow Java, test scope
 * only): all 144 maps and the sequence output, for a sentence and a sentence pair, and the masked-LM
 * predictions, with tanh GELU as Google trained it.
 */
@Tag("full-model")
class TensorFlowParityTest {
  static TensorFlowBert tf;

  @BeforeAll
  static void open() {
    tf = TensorFlowBert.openEmbedded("uncased");
  }

  @AfterAll
  static void close() {
    tf.close();
  }

  @Test
  void mapsAndSequenceOutputMatchTensorFlowForASentenceAndAPair() {
    BertModel model = FullModel.uncasedTanh();
    List<Encoding> inputs = List.of(
        model.encode("The quick brown fox jumps over the lazy dog, and the dog does not mind.", null),
        model.encode("Where is the train station?", "It is two streets away, next to the old bank."));
    TensorFlowBert.Result reference = tf.run(ints(inputs, true), ints(inputs, false));
    List<AttentionTrace> ours = model.trace(TraceRequest.of(inputs));
    for (int i = 0; i < inputs.size(); i++) {
      AttentionTrace t = ours.get(i);
      double mapDiff = 0;
      int maps = 0;
      for (int l = 0; l < 12; l++) {
        for (int h = 0; h < 12; h++) {
          mapDiff = Math.max(mapDiff, maxDiff(t.attention()[l][h], reference.attention()[i][l][h]));
          maps++;
        }
      }
      double seqDiff = maxDiff(t.hiddenStates(), reference.sequenceOutput()[i]);
      System.out.printf("input %d (%d tokens): %d maps, max |A - A_tf| = %.3g, max |h - h_tf| = %.3g%n",
          i, t.tokens().size(), maps, mapDiff, seqDiff);
      assertThat(maps).isEqualTo(144);
      assertThat(mapDiff).isLessThan(1e-4);
      assertThat(seqDiff).isLessThan(1e-3);
    }
  }

  /**
   * The tanh-GELU fill-mask top five, against the masked-LM head of Google's graph (dense, tanh GELU,
   * LayerNorm, tied output embeddings, bias) on TensorFlow's own encoder output, softmaxed here in
   * doubles: an independent reference, where a number written down from HeadScope's output would only
   * check that the output had not changed.
   */
  @Test
  void maskedLmTopFiveWithTanhGeluMatchesTheHeadOfTensorFlowsGraph() throws Exception {
    BertModel model = FullModel.uncasedTanh();
    Encoding input = model.encode("Hello I'm a [MASK] model.", null);
    AttentionTrace t = model.trace(input);
    assertThat(t.predictions()).hasSize(1);
    MaskPrediction ours = t.predictions().get(0);
    assertThat(input.tokens().get(ours.position())).isEqualTo("[MASK]");

    float[] logits = tf.maskedLmLogits(ints(List.of(input), true)[0], ints(List.of(input), false)[0],
        new int[] {ours.position()})[0];
    double max = Double.NEGATIVE_INFINITY;
    for (float l : logits) {
      max = Math.max(max, l);
    }
    double sum = 0;
    double[] p = new double[logits.length];
    for (int i = 0; i < p.length; i++) {
      p[i] = Math.exp(logits[i] - max);
      sum += p[i];
    }
    for (int i = 0; i < p.length; i++) {
      p[i] /= sum;
    }
    Integer[] order = new Integer[p.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> Double.compare(p[b], p[a]));
    List<String> vocab = java.nio.file.Files.readAllLines(tf.vocabulary());
    for (int k = 0; k < 5; k++) {
      MaskPrediction.TokenProbability got = ours.top().get(k);
      int id = order[k];
      System.out.printf("tanh #%d ours %s %.7f, TensorFlow %s %.7f%n", k + 1, got.token(), got.probability(),
          vocab.get(id), p[id]);
      assertThat(got.id()).as("#%d", k + 1).isEqualTo(id);
      assertThat(got.token()).isEqualTo(vocab.get(id));
      assertThat(got.probability()).as("#%d %s", k + 1, got.token()).isCloseTo(p[id], within(1e-5));
    }
  }

  static int[][] ints(List<Encoding> inputs, boolean ids) {
    int[][] out = new int[inputs.size()][];
    for (int i = 0; i < out.length; i++) {
      long[] src = ids ? inputs.get(i).ids() : inputs.get(i).segments();
      out[i] = new int[src.length];
      for (int j = 0; j < src.length; j++) {
        out[i][j] = (int) src[j];
      }
    }
    return out;
  }

  static double maxDiff(float[][] a, float[][] b) {
    assertThat(a.length).isEqualTo(b.length);
    double m = 0;
    for (int i = 0; i < a.length; i++) {
      assertThat(a[i].length).isEqualTo(b[i].length);
      for (int j = 0; j < a[i].length; j++) {
        m = Math.max(m, Math.abs(a[i][j] - b[i][j]));
      }
    }
    return m;
  }
}
