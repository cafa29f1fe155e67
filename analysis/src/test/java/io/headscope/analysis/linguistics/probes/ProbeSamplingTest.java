package io.headscope.analysis.linguistics.probes;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.linguistics.Sentence;
import io.headscope.analysis.linguistics.Word;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The edge probe's pairs and the held-out split: balanced, never an arc among the non-edges, reproducible. */
class ProbeSamplingTest {

  private static Set<List<Integer>> arcs(Sentence s) {
    Set<List<Integer>> out = new HashSet<>();
    for (Word w : s.words()) {
      if (w.head() != 0) {
        out.add(List.of(Math.min(w.id(), w.head()), Math.max(w.id(), w.head())));
      }
    }
    return out;
  }

  @Test
  void everyArcAgainstAsManyDistinctNonArcsOfTheSameSentence() {
    Random r = new Random(1);
    for (int t = 0; t < 200; t++) {
      Sentence s = Synthetic.tree(4 + r.nextInt(20), r, "s");
      List<EdgeSampler.Pair> pairs = EdgeSampler.sample(s, new SplittableRandom(t));
      Set<List<Integer>> arcs = arcs(s);
      Set<List<Integer>> seen = new HashSet<>();
      long edges = 0;
      for (EdgeSampler.Pair p : pairs) {
        assertThat(p.first()).isBetween(1, s.size() - 1);
        assertThat(p.second()).isBetween(p.first() + 1, s.size());
        assertThat(seen.add(List.of(p.first(), p.second()))).as("distinct").isTrue();
        assertThat(arcs.contains(List.of(p.first(), p.second()))).isEqualTo(p.edge());
        edges += p.edge() ? 1 : 0;
      }
      assertThat(edges).isEqualTo(s.size() - 1); // a tree: every word but the root has an arc
      assertThat(pairs).hasSize(2 * (s.size() - 1));
    }
  }

  @Test
  void theSameSeedGivesTheSamePairsAndAnotherSeedOthers() {
    Sentence s = Synthetic.tree(15, new Random(2), "s");
    assertThat(EdgeSampler.sample(s, new SplittableRandom(42)))
        .isEqualTo(EdgeSampler.sample(s, new SplittableRandom(42)));
    Set<List<EdgeSampler.Pair>> differentSeeds = new HashSet<>();
    for (long seed = 0; seed < 5; seed++) {
      differentSeeds.add(EdgeSampler.sample(s, new SplittableRandom(seed)));
    }
    assertThat(differentSeeds).hasSizeGreaterThan(1);
  }

  @Test
  void nonArcsAreDrawnUniformly() {
    // a chain of 6 words has 5 arcs and 10 non-arc pairs; each should be drawn half the time
    List<Word> words = List.of(new Word(1, "a", "X", 2, "d"), new Word(2, "b", "X", 3, "d"),
        new Word(3, "c", "X", 0, "root"), new Word(4, "d", "X", 3, "d"), new Word(5, "e", "X", 4, "d"),
        new Word(6, "f", "X", 5, "d"));
    Sentence s = new Sentence("d", "1", 1, words, List.of());
    int[][] count = new int[7][7];
    SplittableRandom random = new SplittableRandom(3);
    int draws = 20000;
    for (int t = 0; t < draws; t++) {
      for (EdgeSampler.Pair p : EdgeSampler.sample(s, random)) {
        if (!p.edge()) {
          count[p.first()][p.second()]++;
        }
      }
    }
    int nonArcs = 0;
    for (int a = 1; a <= 6; a++) {
      for (int b = a + 1; b <= 6; b++) {
        if (b != a + 1) { // the chain's arcs are the neighbours
          nonArcs++;
          assertThat(count[a][b] / (double) draws).as("%d-%d", a, b).isBetween(0.47, 0.53);
        } else {
          assertThat(count[a][b]).isZero();
        }
      }
    }
    assertThat(nonArcs).isEqualTo(10);
  }

  @Test
  void treesTooSmallToBalanceAreUnusableAndDrawNothing() {
    // three words in a chain: 2 arcs, 1 pair without an arc
    Sentence s = new Sentence("d", "1", 1, List.of(new Word(1, "a", "X", 2, "d"), new Word(2, "b", "X", 0, "root"),
        new Word(3, "c", "X", 2, "d")), List.of());
    SplittableRandom random = new SplittableRandom(4);
    assertThat(EdgeSampler.sample(s, random)).isEmpty();
    assertThat(random.nextLong()).isEqualTo(new SplittableRandom(4).nextLong());
  }

  @Test
  void aFifthOfTheSentencesIsHeldOutTheSameWayForTheSameSeed() {
    for (int m : new int[] {2, 3, 7, 10, 75}) {
      boolean[] held = L2Search.heldOut(m, new SplittableRandom(8));
      int count = 0;
      for (boolean b : held) {
        count += b ? 1 : 0;
      }
      assertThat(count).isEqualTo(Math.max(1, Math.round(m / 5.0f)));
      assertThat(held).isEqualTo(L2Search.heldOut(m, new SplittableRandom(8)));
    }
  }
}
