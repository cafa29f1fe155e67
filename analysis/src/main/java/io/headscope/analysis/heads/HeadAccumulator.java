package io.headscope.analysis.heads;

import io.headscope.model.Head;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Running sums for one head over a corpus, so no trace has to be kept. Not thread-safe. */
public final class HeadAccumulator {
  private final Head head;
  private final int[] counts = new int[HeadPattern.values().length];
  private final double[] scores = new double[5];
  private final double[] stats = new double[HeadStats.FIELDS];
  private final double[] features = new double[MapFeatures.NAMES.size()];
  private final Map<String, Integer> topTokens = new HashMap<>();
  private int inputs;

  public HeadAccumulator(Head head) {
    this.head = head;
  }

  public void add(HeadScore s) {
    if (!s.head().equals(head)) {
      throw new IllegalArgumentException(s.head() + " added to the sums of " + head);
    }
    inputs++;
    counts[s.category().ordinal()]++;
    scores[0] += s.vertical();
    scores[1] += s.diagonal();
    scores[2] += s.block();
    scores[3] += s.heterogeneous();
    scores[4] += s.verticalFocus();
    double[] a = s.stats().toArray();
    for (int i = 0; i < a.length; i++) {
      stats[i] += a[i];
    }
    topTokens.merge(s.topColumns().get(0), 1, Integer::sum);
    double[] x = s.features().values();
    for (int i = 0; i < x.length; i++) {
      features[i] += x[i];
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
      mean[i] = stats[i] / inputs;
    }
    Map<HeadPattern, Double> shares = new EnumMap<>(HeadPattern.class);
    HeadPattern majority = HeadPattern.values()[0];
    for (HeadPattern p : HeadPattern.values()) {
      shares.put(p, counts[p.ordinal()] / (double) inputs);
      if (counts[p.ordinal()] > counts[majority.ordinal()]) {
        majority = p;
      }
    }
    double v = scores[0] / inputs;
    double d = scores[1] / inputs;
    double b = scores[2] / inputs;
    double f = scores[4] / inputs;
    double[] meanFeatures = new double[features.length];
    for (int i = 0; i < features.length; i++) {
      meanFeatures[i] = features[i] / inputs;
    }
    Thresholds.Decision decision = classifier.decide(v, f, d, b, new MapFeatures(meanFeatures));
    List<String> top = new ArrayList<>(topTokens.keySet());
    top.sort((x, y) -> topTokens.get(y) - topTokens.get(x) != 0 ? topTokens.get(y) - topTokens.get(x) : x.compareTo(y));
    return new HeadSummary(head, inputs, decision.category(), decision.confidence(), v, f, d, b, scores[3] / inputs,
        shares, majority, top.subList(0, Math.min(2, top.size())), HeadStats.fromArray(mean));
  }
}
