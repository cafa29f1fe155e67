package io.headscope.analysis.linguistics.probes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Both probes on hand-made maps where one known head carries the tree (each word's row puts 0.5 to 1
 * on its gold head, every other cell of every head is noise below 0.2): trained on some sentences,
 * scored on others, they must be always right and lean on that head.
 */
class ProbeFitTest {
  private static final int LAYERS = 3;
  private static final int HEADS = 4;
  private static final int K = LAYERS * HEADS;
  private static final int SIGNAL_LAYER = 2;
  private static final int SIGNAL_HEAD = 1;
  private static final int SIGNAL = SIGNAL_LAYER * HEADS + SIGNAL_HEAD;

  private static int argmaxAbs(double[] w) {
    int best = 0;
    for (int f = 1; f < w.length; f++) {
      if (Math.abs(w[f]) > Math.abs(w[best])) {
        best = f;
      }
    }
    return best;
  }

  private static ProbeResult result(List<ProbeResult> rs, String probe) {
    return rs.stream().filter(r -> r.probe().equals(probe)).findFirst().orElseThrow();
  }

  @Test
  void headSelectionIsAlwaysRightAndWeighsTheSignalHeadMost() {
    Random r = new Random(5);
    List<PairAttention> train = Synthetic.data(40, LAYERS, HEADS, SIGNAL_LAYER, SIGNAL_HEAD, 0.2, r);
    List<PairAttention> test = Synthetic.data(25, LAYERS, HEADS, SIGNAL_LAYER, SIGNAL_HEAD, 0.2, r);
    ProbeResult h = result(Probes.run("train", train, test, 7), ProbeResult.HEAD_SELECTION);
    long words = test.stream().mapToInt(PairAttention::words).sum();
    assertThat(h.testItems()).isEqualTo(words);
    assertThat(h.accuracy()).isEqualTo(1.0);
    // the dep->head feature of the signal head (the word attends to its head there)
    assertThat(argmaxAbs(h.weights().weights())).isEqualTo(SIGNAL);
    assertThat(h.weights().weights()[SIGNAL]).isPositive();
    assertThat(h.trainSentences()).isEqualTo(40);
    assertThat(L2Search.GRID).contains(h.l2());
  }

  @Test
  void headSelectionFindsTheSignalInTheHeadToDependentDirectionToo() {
    // transpose every map: now the head attends to its dependent at the signal head
    Random r = new Random(6);
    List<PairAttention> train = transposed(Synthetic.data(40, LAYERS, HEADS, SIGNAL_LAYER, SIGNAL_HEAD, 0.2, r));
    List<PairAttention> test = transposed(Synthetic.data(25, LAYERS, HEADS, SIGNAL_LAYER, SIGNAL_HEAD, 0.2, r));
    HeadSelectionProbe probe = new HeadSelectionProbe();
    Weights w = probe.train(train, 1e-3);
    assertThat(probe.evaluate(w, test).accuracy()).isEqualTo(1.0);
    assertThat(argmaxAbs(w.weights())).isEqualTo(K + SIGNAL);
  }

  @Test
  void theEdgeProbeSeparatesArcsAndWeighsTheSignalHeadInBothDirections() {
    Random r = new Random(8);
    List<PairAttention> train = Synthetic.data(60, LAYERS, HEADS, SIGNAL_LAYER, SIGNAL_HEAD, 0.2, r);
    List<PairAttention> test = Synthetic.data(30, LAYERS, HEADS, SIGNAL_LAYER, SIGNAL_HEAD, 0.2, r);
    ProbeResult e = result(Probes.run("train", train, test, 9), ProbeResult.EDGE);
    // the earlier word of an arc is its dependent or its head: the signal is in one direction or the other
    assertThat(e.accuracy()).isEqualTo(1.0);
    double[] w = e.weights().weights();
    double[] rest = w.clone();
    rest[SIGNAL] = 0;
    rest[K + SIGNAL] = 0;
    assertThat(Math.min(w[SIGNAL], w[K + SIGNAL])).isGreaterThan(Math.abs(rest[argmaxAbs(rest)]));
    // the items: two per arc between words of each usable test sentence (roots have no second word)
    long expected = 0;
    for (PairAttention a : test) {
      int n = a.words();
      int arcs = n - 1;
      if (arcs >= 1 && n * (n - 1) / 2 - arcs >= arcs) {
        expected += 2L * arcs;
      }
    }
    assertThat(e.testItems()).isEqualTo(expected);
  }

  @Test
  void onNoiseAloneTheHeadSelectionProbeIsNoBetterThanChanceByMuch() {
    // a check that the 100% above comes from the signal: with the signal head drowned in noise of
    // the same size the probe cannot reach it
    Random r = new Random(10);
    List<PairAttention> train = Synthetic.data(40, LAYERS, HEADS, SIGNAL_LAYER, SIGNAL_HEAD, 5.0, r);
    List<PairAttention> test = Synthetic.data(25, LAYERS, HEADS, SIGNAL_LAYER, SIGNAL_HEAD, 5.0, r);
    ProbeResult h = result(Probes.run("train", train, test, 7), ProbeResult.HEAD_SELECTION);
    assertThat(h.accuracy()).isLessThan(0.6);
  }

  private static List<PairAttention> transposed(List<PairAttention> data) {
    return data.stream().map(p -> {
      int n = p.words() + 1;
      float[][][] t = new float[n][n][];
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          t[i][j] = p.from(j, i);
        }
      }
      return new PairAttention(p.sentence(), t);
    }).toList();
  }
}
