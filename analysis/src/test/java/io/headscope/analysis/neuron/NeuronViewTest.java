package io.headscope.analysis.neuron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The neuron view's q·k, summed over the dimensions and scaled, is the score the engine captures, and its
 * softmax the map the engine computes; by hand on two-dimensional vectors; a causal model's later keys are
 * out of the query's sight.
 */
class NeuronViewTest {
  @TempDir Path dir;

  @Test
  void byHandOnTwoDimensions() {
    float[] q = {1, 2};
    float[][] k = {{1, 0}, {0, 1}, {1, 1}};
    NeuronView v = NeuronView.of(new Head(0, 0), 1, List.of("a", "b", "c"), q, k, false, new float[3], new float[3]);
    double s = 1 / Math.sqrt(2);
    // q·k = 1, 2, 3, times 1/sqrt(2)
    assertThat(v.scores()).containsExactly(new double[] {s, 2 * s, 3 * s}, within(1e-12));
    double z = Math.exp(s) + Math.exp(2 * s) + Math.exp(3 * s);
    assertThat(v.softmax()).containsExactly(new double[] {Math.exp(s) / z, Math.exp(2 * s) / z, Math.exp(3 * s) / z},
        within(1e-12));
    assertThat(v.product(2)).containsExactly(1.0, 2.0);
    assertThat(v.maxAbs()).isEqualTo(2.0);

    NeuronView causal = NeuronView.of(new Head(0, 0), 1, List.of("a", "b", "c"), q, k, true, new float[3], new float[3]);
    assertThat(causal.scores()[2]).isNaN();
    assertThat(causal.softmax()[2]).isZero();
    double z2 = Math.exp(s) + Math.exp(2 * s);
    assertThat(causal.softmax()[1]).isCloseTo(Math.exp(2 * s) / z2, within(1e-12));
  }

  @Test
  void theScoresAndTheSoftmaxAreTheEnginesOnABertAndAGpt2() {
    try (BertModel bert = BertModel.load(TinyBert.create(2, 3, 5).writeTo(dir.resolve("bert")));
        BertModel gpt2 = BertModel.load(FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 7))) {
      for (BertModel m : List.of(bert, gpt2)) {
        Encoding e = m.encode("the cat sat on the mat .", null);
        for (Head h : List.of(new Head(0, 1), new Head(1, 2))) {
          for (int query : new int[] {0, e.length() / 2, e.length() - 1}) {
            NeuronView v = NeuronView.of(m, e, h, query);
            for (int j = 0; j < e.length(); j++) {
              if (Double.isNaN(v.scores()[j])) {
                assertThat(j).as("only a causal model's later keys are hidden").isGreaterThan(query);
                assertThat(v.attention()[j]).isZero();
                continue;
              }
              double sum = 0;
              for (double p : v.product(j)) {
                sum += p;
              }
              assertThat(sum / Math.sqrt(m.config().headSize())).as("%s %s q=%d k=%d", m.name(), h, query, j)
                  .isCloseTo(v.engineScores()[j], within(1e-5 * Math.max(1, Math.abs(v.engineScores()[j]))));
              assertThat(v.softmax()[j]).isCloseTo(v.attention()[j], within(1e-6));
            }
          }
        }
      }
      Encoding e = bert.encode("the cat sat .", null);
      assertThatThrownBy(() -> NeuronView.of(bert, e, new Head(0, 0), 99)).isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("outside");
      assertThatThrownBy(() -> NeuronView.of(bert, e, new Head(5, 0), 0)).isInstanceOf(HeadScopeException.class);
    }
  }
}
