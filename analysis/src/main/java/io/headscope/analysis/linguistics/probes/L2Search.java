package io.headscope.analysis.linguistics.probes;

import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Chooses a probe's L2 strength on held-out TRAIN sentences: a seeded shuffle sets a fifth of them
 * aside, the probe is fitted on the rest with each strength of {@link #GRID} and scored on the fifth;
 * the best held-out accuracy wins (ties: the stronger penalty, the simpler model). The final probe is
 * then fitted on all of TRAIN with that strength.
 */
final class L2Search {
  /** Strengths of {@code l2 / 2 * |theta|^2} on standardised features, against a mean loss per item. */
  static final double[] GRID = {1e-4, 1e-3, 1e-2, 1e-1, 1};
  static final double HELD_OUT = 0.2;

  /**
   * The chosen strength, each strength's held-out accuracy (in grid order), and the standardised
   * weights fitted with the chosen one (where the final fit starts).
   */
  record Choice(double l2, double[] heldOutAccuracy, int fitSentences, int heldOutSentences, double[] theta) {}

  private L2Search() {}

  static <D> Choice choose(Probe<D> probe, List<D> train, SplittableRandom random) {
    boolean[] held = heldOut(train.size(), random);
    List<D> fit = new ArrayList<>();
    List<D> check = new ArrayList<>();
    for (int i = 0; i < train.size(); i++) {
      (held[i] ? check : fit).add(train.get(i));
    }
    double[] acc = new double[GRID.length];
    int best = GRID.length - 1;
    double[] bestTheta = null;
    double[] start = null;
    // strongest penalty first, each fit starting where the previous one ended (warm starts: the
    // weaker the penalty, the slower the optimiser converges from zero)
    for (int g = GRID.length - 1; g >= 0; g--) {
      Probe.Fit f = probe.fit(fit, GRID[g], start);
      start = f.theta();
      acc[g] = probe.evaluate(f.weights(), check).accuracy();
      if (bestTheta == null || acc[g] > acc[best]) {
        best = g; // only a strictly better score moves to a weaker penalty
        bestTheta = f.theta();
      }
    }
    return new Choice(GRID[best], acc, fit.size(), check.size(), bestTheta);
  }

  /**
   * Which of {@code m} sentences are held out: {@code max(1, round(m / 5))} of them, the first of a
   * Fisher-Yates shuffle of 0..m-1.
   */
  static boolean[] heldOut(int m, SplittableRandom random) {
    if (m < 2) {
      throw new HeadScopeException("needs at least 2 usable sentences to hold some out, has " + m);
    }
    int[] order = new int[m];
    for (int i = 0; i < m; i++) {
      order[i] = i;
    }
    for (int i = m - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    int count = Math.max(1, (int) Math.round(m * HELD_OUT));
    boolean[] held = new boolean[m];
    for (int i = 0; i < count; i++) {
      held[order[i]] = true;
    }
    return held;
  }
}
