package io.headscope.analysis.linguistics.probes;

import io.headscope.analysis.linguistics.Sentence;
import io.headscope.analysis.linguistics.Word;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The word pairs of Coenen et al.'s edge probe: every gold arc between two words (the root's arc has
 * no second word), against as many pairs of the same sentence with no arc between them, drawn
 * uniformly without replacement. Pairs are unordered and written earlier word first.
 */
public final class EdgeSampler {
  private EdgeSampler() {}

  /** Two words, {@code first < second} (1-based ids), with or without an arc between them. */
  public record Pair(int first, int second, boolean edge) {}

  /**
   * The balanced pairs of one sentence, or an empty list when it cannot give them (no arc between
   * words, or fewer pairs without an arc than arcs: trees of three words or fewer). Draws from
   * {@code random} only for a usable sentence.
   */
  public static List<Pair> sample(Sentence s, SplittableRandom random) {
    Set<Long> arcs = new LinkedHashSet<>();
    for (Word w : s.words()) {
      if (w.head() != 0 && w.head() != w.id()) {
        arcs.add(key(Math.min(w.id(), w.head()), Math.max(w.id(), w.head())));
      }
    }
    List<Pair> none = new ArrayList<>();
    for (int a = 1; a <= s.size(); a++) {
      for (int b = a + 1; b <= s.size(); b++) {
        if (!arcs.contains(key(a, b))) {
          none.add(new Pair(a, b, false));
        }
      }
    }
    if (arcs.isEmpty() || none.size() < arcs.size()) {
      return List.of();
    }
    List<Pair> out = new ArrayList<>();
    for (long arc : arcs) {
      out.add(new Pair((int) (arc >>> 32), (int) arc, true));
    }
    for (int k = 0; k < arcs.size(); k++) { // the first arcs.size() steps of a Fisher-Yates shuffle
      int pick = k + random.nextInt(none.size() - k);
      Pair chosen = none.get(pick);
      none.set(pick, none.get(k));
      none.set(k, chosen);
      out.add(chosen);
    }
    return List.copyOf(out);
  }

  private static long key(int a, int b) {
    return ((long) a << 32) | b;
  }
}
