package io.headscope.analysis.linguistics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Dependency-head scoring and Clark's offset baseline on hand-made word maps. */
class DependencyHeadsTest {
  // "the dog barked": the -det-> dog, dog -nsubj-> barked, barked root
  static final Sentence S = new Sentence("d", "1", 1, List.of(
      new Word(1, "the", "DET", 2, "det"),
      new Word(2, "dog", "NOUN", 3, "nsubj"),
      new Word(3, "barked", "VERB", 0, "root")), List.of());

  /** A word map [CLS] the dog barked [SEP] (5 x 5) whose argmax rows are given (self and specials ignored). */
  static float[][] map(int[] rowTarget) {
    float[][] m = new float[5][5];
    for (int i = 0; i < 5; i++) {
      m[i][i] = 0.5f; // self-attention: zeroed before the argmax
      m[i][0] = 0.3f; // [CLS]: dropped
      m[i][4] = 0.3f; // [SEP]: dropped
    }
    for (int i = 1; i <= 3; i++) {
      m[i][rowTarget[i]] = 0.2f;
    }
    return m;
  }

  @Test
  void predictionsBothWaysAndTheRootNeverRight() {
    DependencyHeads d = new DependencyHeads(1, 2, false);
    // head 0: the->dog, dog->barked, barked->dog (all three dep->head right but root can't be)
    // head 1: the->barked, dog->the, barked->the
    float[][][][] maps = {{map(new int[] {0, 2, 3, 2}), map(new int[] {0, 3, 1, 1})}};
    d.add(S, maps);
    assertThat(d.accuracy("det", 0, 0, DependencyHeads.Direction.DEP_TO_HEAD)).isEqualTo(1.0);
    assertThat(d.accuracy("nsubj", 0, 0, DependencyHeads.Direction.DEP_TO_HEAD)).isEqualTo(1.0);
    assertThat(d.accuracy("root", 0, 0, DependencyHeads.Direction.DEP_TO_HEAD)).isEqualTo(0.0);
    assertThat(d.accuracy("all", 0, 0, DependencyHeads.Direction.DEP_TO_HEAD)).isCloseTo(2 / 3.0, within(1e-12));
    // head->dep on head 1: the word attending most to "the" is dog (row dog -> the) or barked (row barked -> the):
    // column "the" = (dog 0.2, barked 0.2): a tie goes to the earlier word, dog = the's gold head
    assertThat(d.accuracy("det", 0, 1, DependencyHeads.Direction.HEAD_TO_DEP)).isEqualTo(1.0);
    // column "dog" of head 1 is all zero (rows: the->barked, dog->the, barked->the): the tie goes to
    // "the", not dog's gold head "barked"
    assertThat(d.accuracy("nsubj", 0, 1, DependencyHeads.Direction.HEAD_TO_DEP)).isEqualTo(0.0);
  }

  @Test
  void theBaselineIsTheBestClampedOffset() {
    DependencyHeads d = new DependencyHeads(1, 1, false);
    d.add(S, new float[][][][] {{map(new int[] {0, 2, 3, 2})}});
    // offset +1: the->2 right, dog->3 right, barked->3 (clamped to n) wrong: det 1.0, nsubj 1.0, all 2/3
    List<DependencyHeads.Best> best = d.best();
    DependencyHeads.Best all = best.stream().filter(b -> b.relation().equals("all")).findFirst().orElseThrow();
    assertThat(all.baselineOffset()).isEqualTo(1);
    assertThat(all.baselineAccuracy()).isCloseTo(2 / 3.0, within(1e-12));
    assertThat(all.count()).isEqualTo(3);
    assertThat(best.get(0).relation()).isEqualTo("all"); // by count
  }

  @Test
  void universalCollapsesSubtypes() {
    Sentence s = new Sentence("d", "1", 1, List.of(
        new Word(1, "my", "PRON", 2, "nmod:poss"),
        new Word(2, "dog", "NOUN", 0, "root")), List.of());
    float[][] m = new float[4][4];
    m[1][2] = 1;
    m[2][1] = 1;
    DependencyHeads u = new DependencyHeads(1, 1, true);
    u.add(s, new float[][][][] {{m}});
    assertThat(u.accuracy("nmod", 0, 0, DependencyHeads.Direction.DEP_TO_HEAD)).isEqualTo(1.0);
    assertThat(u.accuracy("nmod:poss", 0, 0, DependencyHeads.Direction.DEP_TO_HEAD)).isNaN();
  }
}
