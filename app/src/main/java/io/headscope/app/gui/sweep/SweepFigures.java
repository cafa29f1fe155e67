package io.headscope.app.gui.sweep;

import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.MatrixFigure;
import io.headscope.model.core.HeadScopeException;
import io.headscope.analysis.ablation.AblationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The sweep as a figure for a paper: layers x heads of the chosen metric on a diverging scale (KL on the
 * sequential one) with the numbers in the cells, the metric, the switch-off mode, the input and the
 * number of positions in the notes, and each whole layer's effect as a cell of its own right of its heads.
 */
final class SweepFigures {
  private SweepFigures() {}

  static Figure of(SweepViewModel vm, String model, String mode) {
    SweepViewModel.Metric metric = vm.metricProperty().get();
    if (!vm.hasValues()) {
      throw new HeadScopeException("Run the sweep for this metric first.");
    }
    boolean importance = metric == SweepViewModel.Metric.IMPORTANCE;
    AblationResult r = vm.resultProperty().get();
    var imp = vm.importanceProperty().get();
    int layers = importance ? imp.importance().length : r.layers();
    int heads = importance ? imp.importance()[0].length : r.heads();
    double[][] values = new double[layers][heads];
    double[] wholeLayers = new double[layers];
    boolean anyLayer = false;
    List<String> rows = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        values[l][h] = vm.value(l, h);
      }
      wholeLayers[l] = vm.value(l, -1);
      anyLayer |= !Double.isNaN(wholeLayers[l]);
      rows.add("L" + (l + 1));
    }
    List<String> cols = new ArrayList<>();
    for (int h = 0; h < heads; h++) {
      cols.add("h" + (h + 1));
    }
    List<String> notes = importance
        ? List.of("|∂ loss / ∂ m_h| of the " + vm.lossName() + " (Michel et al. 2019), normalised within each layer",
            String.format(Locale.ROOT, "%s %.3f nats", vm.lossName(), imp.meanLoss()))
        : List.of("each head switched off alone (" + mode + "), then each whole layer; metric: " + vm.metricLabel(),
            String.format(Locale.ROOT, "%d masked position%s probed; intact %s %.3f; %s is the most probable token at "
                    + "%.0f%% of them%s", r.positions(), r.positions() == 1 ? "" : "s", r.metric(), r.baselineLogprob(),
                vm.targetWords(), 100 * r.baselineAccuracy(),
                vm.partialProperty().get() ? "; PARTIAL: cancelled, blank layers not swept" : ""));
    String meaning = importance ? "importance: larger = the prediction leans on the head more"
        : !vm.signed() ? "KL(intact ‖ off): larger = the prediction changed more"
        : "red: switching the head off lowered it (the head helped); blue: raised it";
    return MatrixFigure.of(model + " · " + (importance ? "head importance" : "ablation sweep: " + vm.metricLabel()),
        notes, vm.inputProperty().get(), rows, cols, values, vm.signed(), meaning, 36, true,
        anyLayer ? wholeLayers : null, "layer off");
  }
}
