package io.headscope.model.parity;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.HeadMask;
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
 * only): all 144 maps and the sequence output, for a sentence and a sentence pair, with tanh GELU
 * as Google trained it.
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
    List<AttentionTrace> ours = model.trace(inputs, HeadMask.NONE, 5);
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
