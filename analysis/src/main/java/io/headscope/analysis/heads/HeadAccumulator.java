package io.headscope.analysis.heads;

import io.headscope.analysis.numeric.ExactSum;
import io.headscope.model.core.Head;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Running sums for one head over a corpus, so no trace has to be kept. Not thread-safe.
 *
 * <p>The sums are exact ({@link ExactSum}), so the means do not depend on the order the inputs came in:
 * a corpus run in shards and {@link #add(HeadAccumulator) merged} gives the bytes one run gives.
 */
public final class HeadAccumulator {
  private final Head head;
  private final int[] counts = new int[HeadPattern.values().length];
  private final ExactSum[] scores = sums(5);
  private final ExactSum[] stats = sums(HeadStats.FIELDS);
  private final ExactSum[] features = sums(MapFeatures.NAMES.size());
  private final Map<String, Integer> topTokens = new HashMap<>();
  private int inputs;

  public HeadAccumulator(Head head) {
    this.head = head;
  }

  /**
   * Everything the sums hold, for a partial result on disk: the exact sums as {@link ExactSum} text.
   *
   * @param counts inputs per category, in {@link HeadPattern} order
   * @param scores sums of vertical, diagonal, block, heterogeneous, vertical focus
   * @param stats sums of {@link HeadStats}'s fields in declaration order
   * @param topTokens how often each token was the most attended
   * @param features sums of {@link MapFeatures} in {@link MapFeatures#NAMES} order (the learned
   *     classifier decides a corpus's category on their means)
   */
  public record State(int inputs, int[] counts, List<String> scores, List<String> stats,
      Map<String, Integer> topTokens, List<String> features) {}

  public Head head() {
    return head;
  }

  public State state() {
    return new State(inputs, counts.clone(), text(scores), text(stats), new java.util.TreeMap<>(topTokens),
        text(features));
  }

  /** Sums read back from {@link #state()}. */
  public static HeadAccumulator of(Head head, State s) {
    HeadAccumulator a = new HeadAccumulator(head);
    if (s.counts().length != a.counts.length || s.scores().size() != a.scores.length
        || s.stats().size() != a.stats.length || s.features() == null
        || s.features().size() != a.features.length) {
      throw new IllegalArgumentException("sums of " + head + " have the wrong number of fields");
    }
    a.inputs = s.inputs();
    System.arraycopy(s.counts(), 0, a.counts, 0, a.counts.length);
    for (int i = 0; i < a.scores.length; i++) {
      a.scores[i] = ExactSum.parse(s.scores().get(i));
    }
    for (int i = 0; i < a.stats.length; i++) {
      a.stats[i] = ExactSum.parse(s.stats().get(i));
    }
    a.topTokens.putAll(s.topTokens());
    for (int i = 0; i < a.features.length; i++) {
      a.features[i] = ExactSum.parse(s.features().get(i));
    }
    return a;
  }

  /** Adds another shard's sums for the same head. */
  public void add(HeadAccumulator other) {
    if (!other.head.equals(head)) {
      throw new IllegalArgumentException(other.head + " merged into the sums of " + head);
    }
    inputs += other.inputs;
    for (int i = 0; i < counts.length; i++) {
      counts[i] += other.counts[i];
    }
    for (int i = 0; i < scores.length; i++) {
      scores[i].add(other.scores[i]);
    }
    for (int i = 0; i < stats.length; i++) {
      stats[i].add(other.stats[i]);
    }
    other.topTokens.forEach((t, n) -> topTokens.merge(t, n, Integer::sum));
    for (int i = 0; i < features.length; i++) {
      features[i].add(other.features[i]);
    }
  }

  private static ExactSum[] sums(int n) {
    ExactSum[] s = new ExactSum[n];
    for (int i = 0; i < n; i++) {
      s[i] = new ExactSum();
    }
    return s;
  }

  private static List<String> text(ExactSum[] sums) {
    return java.util.Arrays.stream(sums).map(ExactSum::toString).toList();
  }

  public void add(HeadScore s) {
    if (!s.head().equals(head)) {
      throw new IllegalArgumentException(s.head() + " added to the sums of " + head);
    }
    inputs++;
    counts[s.category().ordinal()]++;
    scores[0].add(s.vertical());
    scores[1].add(s.diagonal());
    scores[2].add(s.block());
    scores[3].add(s.heterogeneous());
    scores[4].add(s.verticalFocus());
    double[] a = s.stats().toArray();
    for (int i = 0; i < a.length; i++) {
      stats[i].add(a[i]);
    }
    topTokens.merge(s.topColumns().get(0), 1, Integer::sum);
    double[] x = s.features().values();
    for (int i = 0; i < x.length; i++) {
      features[i].add(x[i]);
    }
  }

  public int inputs() {
    return inputs;
  }

  /** The summary under the threshold rule (the category of the mean scores). */
  public HeadSummary summary(Thresholds t) {
    return summary(new HeadClassifier(t));
  }

  /**
   * The summary with the classifier's method applied to the mean over inputs: of the scores for the
   * rule, of the features for the learned model.
   */
  public HeadSummary summary(HeadClassifier classifier) {
    if (inputs == 0) {
      throw new IllegalStateException("no input was added for " + head);
    }
    double[] mean = new double[stats.length];
    for (int i = 0; i < mean.length; i++) {
      mean[i] = stats[i].value() / inputs;
    }
    Map<HeadPattern, Double> shares = new EnumMap<>(HeadPattern.class);
    HeadPattern majority = HeadPattern.values()[0];
    for (HeadPattern p : HeadPattern.values()) {
      shares.put(p, counts[p.ordinal()] / (double) inputs);
      if (counts[p.ordinal()] > counts[majority.ordinal()]) {
        majority = p;
      }
    }
    double v = scores[0].value() / inputs;
    double d = scores[1].value() / inputs;
    double b = scores[2].value() / inputs;
    double f = scores[4].value() / inputs;
    double[] meanFeatures = new double[features.length];
    for (int i = 0; i < features.length; i++) {
      meanFeatures[i] = features[i].value() / inputs;
    }
    Thresholds.Decision decision = classifier.decide(v, f, d, b, new MapFeatures(meanFeatures));
    List<String> top = new ArrayList<>(topTokens.keySet());
    top.sort((x, y) -> topTokens.get(y) - topTokens.get(x) != 0 ? topTokens.get(y) - topTokens.get(x) : x.compareTo(y));
    return new HeadSummary(head, inputs, decision.category(), decision.confidence(), v, f, d, b, scores[3].value() / inputs,
        shares, majority, top.subList(0, Math.min(2, top.size())), HeadStats.fromArray(mean), decision.runnerUp(),
        decision.runnerUpConfidence(), decision.uncertain());
  }
}
