package io.headscope.analysis.ablation;

import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.ImportanceResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Gradient importance per head (1-based), ranked, beside the sweep's measured change when a sweep
 * was run over the same inputs.
 *
 * @param spearman Spearman's rank correlation between the raw importance and the magnitude of the
 *     sweep's {@code |delta_logprob|} (both say how much a head matters, whatever the sign); NaN
 *     without a sweep
 */
public record ImportanceTable(ImportanceResult result, List<Row> rows, double spearman) {

  /**
   * @param rank 1 for the most important head by raw importance
   * @param sweepDeltaLogprob the sweep's change with the head off, NaN without a sweep
   */
  public record Row(int layer, int head, double importance, double normalized, int rank, double sweepDeltaLogprob) {}

  public ImportanceTable {
    rows = List.copyOf(rows);
  }

  /** @param sweep the sweep of the same inputs, or null */
  public static ImportanceTable of(ImportanceResult r, AblationResult sweep) {
    int layers = r.importance().length;
    int heads = r.importance()[0].length;
    double[] imp = new double[layers * heads];
    double[] delta = new double[layers * heads];
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        imp[l * heads + h] = r.importance()[l][h];
        delta[l * heads + h] = sweep == null ? Double.NaN : sweep.deltaLogprob(l, h);
      }
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < imp.length; i++) {
      order.add(i);
    }
    order.sort(Comparator.comparingDouble((Integer i) -> -imp[i]).thenComparingInt(i -> i));
    int[] rank = new int[imp.length];
    for (int k = 0; k < order.size(); k++) {
      rank[order.get(k)] = k + 1;
    }
    List<Row> rows = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        int i = l * heads + h;
        rows.add(new Row(l + 1, h + 1, imp[i], r.normalized()[l][h], rank[i], delta[i]));
      }
    }
    double rho = Double.NaN;
    if (sweep != null) {
      double[] magnitude = new double[delta.length];
      for (int i = 0; i < delta.length; i++) {
        magnitude[i] = Math.abs(delta[i]);
      }
      rho = RankCorrelation.spearman(imp, magnitude);
    }
    return new ImportanceTable(r, rows, rho);
  }
}
