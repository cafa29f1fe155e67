package io.headscope.analysis.heads;

import java.util.List;

/**
 * How {@link LearnedRule#UNCERTAIN_BELOW} is chosen, on held-out predictions only: the largest threshold on
 * a grid of 0.05 (0.30 to 0.80) under which the held-out agreement with the consensus, over the maps two
 * labellers saw, is still below one half. Under it a colour would be wrong more often than right, so the
 * grid says "uncertain" instead.
 */
final class UncertainThreshold {
  static final double FROM = 0.30;
  static final double TO = 0.80;
  static final double STEP = 0.05;

  private UncertainThreshold() {}

  static double choose(List<ClassifierEvaluation.Map1> maps, HeadPattern[] said, double[] confidence) {
    double chosen = 0;
    for (int k = 0; FROM + k * STEP <= TO + 1e-9; k++) {
      double t = Math.round((FROM + k * STEP) * 100) / 100.0;
      int n = 0;
      int hit = 0;
      for (int i = 0; i < maps.size(); i++) {
        if (maps.get(i).entry().twoLabellers() && confidence[i] < t) {
          n++;
          hit += said[i] == maps.get(i).entry().label() ? 1 : 0;
        }
      }
      if (n > 0 && hit < 0.5 * n) {
        chosen = t;
      }
    }
    return chosen;
  }
}
