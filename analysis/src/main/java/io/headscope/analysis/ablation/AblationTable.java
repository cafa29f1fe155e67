package io.headscope.analysis.ablation;

import io.headscope.model.core.Head;
import io.headscope.analysis.ablation.AblationResult;
import java.util.ArrayList;
import java.util.List;

/**
 * A sweep laid out for people and files: one row per head (1-based) and, when the layers were
 * swept, one per whole layer; the per-layer totals of the single-head deltas; and the heads whose
 * removal helps.
 *
 * @param layerTotals {@code [layer]}: the sum over the layer's heads of {@code delta_logprob} (each
 *     head switched off alone; not the same as the whole layer off)
 * @param helpfulHeads heads whose removal raised the log-probability, largest gain first
 */
public record AblationTable(AblationResult result, List<Row> rows, double[] layerTotals, List<Head> helpfulHeads) {

  /**
   * One variant.
   *
   * @param layer 1-based
   * @param head 1-based, or 0 for the whole layer
   */
  public record Row(int layer, int head, double baselineLogprob, double ablatedLogprob, double baselineAcc,
      double ablatedAcc, double kl) {
    public boolean wholeLayer() {
      return head == 0;
    }

    public double deltaLogprob() {
      return ablatedLogprob - baselineLogprob;
    }

    public double deltaAcc() {
      return ablatedAcc - baselineAcc;
    }
  }

  public AblationTable {
    rows = List.copyOf(rows);
    helpfulHeads = List.copyOf(helpfulHeads);
  }

  public static AblationTable of(AblationResult r) {
    List<Row> rows = new ArrayList<>();
    double[] totals = new double[r.layers()];
    for (int l = 0; l < r.layers(); l++) {
      if (Double.isNaN(r.headLogprob()[l][0])) {
        continue; // a sweep cancelled part-way writes the layers it measured, no rows of NaN
      }
      for (int h = 0; h < r.heads(); h++) {
        rows.add(new Row(l + 1, h + 1, r.baselineLogprob(), r.headLogprob()[l][h], r.baselineAccuracy(),
            r.headAccuracy()[l][h], r.headKl()[l][h]));
        totals[l] += r.deltaLogprob(l, h);
      }
      if (r.hasLayers()) {
        rows.add(new Row(l + 1, 0, r.baselineLogprob(), r.layerLogprob()[l], r.baselineAccuracy(),
            r.layerAccuracy()[l], r.layerKl()[l]));
      }
    }
    return new AblationTable(r, rows, totals, r.helpfulHeads());
  }
}
