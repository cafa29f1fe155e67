package io.headscope.analysis.compare;

import io.headscope.analysis.heads.HeadAccumulator;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.analysis.numeric.ExactSum;
import io.headscope.model.core.Head;

/**
 * Running sums for one head over a corpus in both models: cosine, divergence, and each model's
 * category counts. The sums are exact ({@link ExactSum}), so shards added up give the bits one run gives.
 * Not thread-safe.
 */
public final class HeadPairSums {
  private final Head head;
  private final ExactSum cosine = new ExactSum();
  private final ExactSum js = new ExactSum();
  private final HeadAccumulator inA;
  private final HeadAccumulator inB;

  /**
   * Everything the sums hold, for a partial result on disk.
   *
   * @param cosine the exact sum of the per-input cosines, as {@link ExactSum} text
   * @param js the same for the divergences
   */
  public record State(String cosine, String js, HeadAccumulator.State a, HeadAccumulator.State b) {}

  public HeadPairSums(Head head) {
    this(head, new HeadAccumulator(head), new HeadAccumulator(head));
  }

  private HeadPairSums(Head head, HeadAccumulator inA, HeadAccumulator inB) {
    this.head = head;
    this.inA = inA;
    this.inB = inB;
  }

  public Head head() {
    return head;
  }

  public State state() {
    return new State(cosine.toString(), js.toString(), inA.state(), inB.state());
  }

  /** Sums read back from {@link #state()}. */
  public static HeadPairSums of(Head head, State s) {
    HeadPairSums p = new HeadPairSums(head, HeadAccumulator.of(head, s.a()), HeadAccumulator.of(head, s.b()));
    p.cosine.add(ExactSum.parse(s.cosine()));
    p.js.add(ExactSum.parse(s.js()));
    return p;
  }

  /** One input: the two maps' cosine and divergence, and each model's score of its map. */
  void add(double cos, double divergence, HeadScore a, HeadScore b) {
    cosine.add(cos);
    js.add(divergence);
    inA.add(a);
    inB.add(b);
  }

  /** Adds another shard's sums for the same head. */
  public void add(HeadPairSums other) {
    if (!other.head.equals(head)) {
      throw new IllegalArgumentException(other.head + " merged into the sums of " + head);
    }
    cosine.add(other.cosine);
    js.add(other.js);
    inA.add(other.inA);
    inB.add(other.inB);
  }

  /** The means over the inputs, and each model's majority category. */
  HeadComparison mean(HeadClassifier classifier) {
    int n = inA.inputs();
    return new HeadComparison(head, cosine.value() / n, js.value() / n, inA.summary(classifier).majority(),
        inB.summary(classifier).majority(), n);
  }
}
