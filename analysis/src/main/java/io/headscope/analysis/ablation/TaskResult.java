package io.headscope.analysis.ablation;

import io.headscope.model.core.HeadMask;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * What switching each head off alone (and, if asked, each whole layer) does to a sequence classifier
 * on a labelled corpus: {@link TaskScores} intact and per variant. Indices are 0-based {@code [layer][head]}.
 *
 * @param layerScores per whole layer off; null when layers were not swept
 */
public record TaskResult(HeadMask.Mode mode, int inputs, int classes, TaskScores baseline, TaskScores[][] headScores,
    TaskScores[] layerScores) {

  public int layers() {
    return headScores.length;
  }

  public int heads() {
    return headScores[0].length;
  }

  public boolean hasLayers() {
    return layerScores != null;
  }

  /** The scores of every input's outcome together (inputs in any order give the same numbers but the last bits). */
  public static TaskResult of(List<TaskOutcome> outcomes, int classes, HeadMask.Mode mode) {
    if (outcomes.isEmpty()) {
      throw new IllegalArgumentException("no outcomes");
    }
    TaskOutcome first = outcomes.get(0);
    int layers = first.headPredicted().length;
    int heads = first.headPredicted()[0].length;
    boolean swept = first.layerPredicted() != null;
    TaskScores base = scores(outcomes, classes, TaskOutcome::basePredicted, TaskOutcome::baseLoglik);
    TaskScores[][] h = new TaskScores[layers][heads];
    TaskScores[] whole = swept ? new TaskScores[layers] : null;
    for (int l = 0; l < layers; l++) {
      int layer = l;
      for (int j = 0; j < heads; j++) {
        int head = j;
        h[l][j] = scores(outcomes, classes, o -> o.headPredicted()[layer][head], o -> o.headLoglik()[layer][head]);
      }
      if (swept) {
        whole[l] = scores(outcomes, classes, o -> o.layerPredicted()[layer], o -> o.layerLoglik()[layer]);
      }
    }
    return new TaskResult(mode, outcomes.size(), classes, base, h, whole);
  }

  private static TaskScores scores(List<TaskOutcome> outcomes, int classes, ToIntFunction<TaskOutcome> predicted,
      ToDoubleFunction<TaskOutcome> loglik) {
    int n = outcomes.size();
    int[] gold = new int[n];
    int[] pred = new int[n];
    double[] ll = new double[n];
    for (int i = 0; i < n; i++) {
      gold[i] = outcomes.get(i).gold();
      pred[i] = predicted.applyAsInt(outcomes.get(i));
      ll[i] = loglik.applyAsDouble(outcomes.get(i));
    }
    return TaskScores.of(gold, pred, ll, classes);
  }

  /** {@code [layer][head]} of one score's change, ablated minus intact. */
  public double[][] delta(Function<TaskScores, Double> score) {
    double[][] d = new double[layers()][heads()];
    for (int l = 0; l < layers(); l++) {
      for (int h = 0; h < heads(); h++) {
        d[l][h] = score.apply(headScores[l][h]) - score.apply(baseline);
      }
    }
    return d;
  }
}
