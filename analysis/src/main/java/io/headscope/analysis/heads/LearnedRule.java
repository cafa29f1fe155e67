package io.headscope.analysis.heads;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * The learned way to a category: a {@link LogisticModel} over {@link MapFeatures}, its most probable
 * class the category and that probability the confidence (on held-out inputs, agreement with the
 * labellers rises with it; labels/README.md shows the bins).
 */
public final class LearnedRule {
  /** The model shipped in the resources module, trained on every hand-labelled map. */
  public static final String RESOURCE = "/headscope/classifier/kovaleva-logistic.json";

  /**
   * Below this top probability a head is "uncertain": chosen on held-out predictions (grouped
   * cross-validation over the three label sets) as the largest value on a grid of 0.05 under which the
   * held-out agreement with the consensus, over the maps two labellers saw, is below one half, i.e. where
   * a colour would be wrong more often than right ({@code UncertainThreshold}; {@code
   * ClassifierEvaluationTest} re-derives it; METHODS.md).
   */
  public static final double UNCERTAIN_BELOW = 0.55;

  private static volatile LearnedRule shipped;

  private final LogisticModel model;
  private final HeadPattern[] classes;

  public LearnedRule(LogisticModel model) {
    if (!model.features().equals(MapFeatures.NAMES)) {
      throw new HeadScopeException("The classifier model reads features " + model.features()
          + ", but this version computes " + MapFeatures.NAMES + ".");
    }
    this.model = model;
    this.classes = model.classes().stream().map(HeadPattern::parse).toArray(HeadPattern[]::new);
    if (!Arrays.asList(classes).containsAll(Arrays.asList(HeadPattern.values()))) {
      throw new HeadScopeException("The classifier model must know all five categories: " + model.classes());
    }
  }

  /** The shipped model, read once. */
  public static LearnedRule shipped() {
    LearnedRule r = shipped;
    if (r == null) {
      synchronized (LearnedRule.class) {
        if (shipped == null) {
          try (InputStream in = LearnedRule.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
              throw new HeadScopeException("The classifier model " + RESOURCE + " is missing from the build.");
            }
            shipped = new LearnedRule(LogisticModel.read(in));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
        r = shipped;
      }
    }
    return r;
  }

  public LogisticModel model() {
    return model;
  }

  /** Each category's probability, in {@link HeadPattern} order. */
  public double[] probabilities(MapFeatures f) {
    double[] p = model.probabilities(f.values());
    double[] out = new double[HeadPattern.values().length];
    for (int c = 0; c < p.length; c++) {
      out[classes[c].ordinal()] = p[c];
    }
    return out;
  }

  public Thresholds.Decision decide(MapFeatures f) {
    double[] p = model.probabilities(f.values());
    int best = LogisticModel.argmax(p);
    int second = -1;
    for (int c = 0; c < p.length; c++) {
      if (c != best && (second < 0 || p[c] > p[second])) {
        second = c;
      }
    }
    return new Thresholds.Decision(classes[best], p[best], classes[second], p[second], p[best] < UNCERTAIN_BELOW);
  }
}
