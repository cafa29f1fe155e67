package io.headscope.app.gui.sweep;

import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.MatrixFigure;
import io.headscope.model.HeadScopeException;
import io.headscope.model.ablation.AblationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The sweep as a figure for a paper: layers x heads of the chosen metric on a diverging scale (KL on the
 * sequential one) with the numbers in the cells, the metric, the switch-off mode, the input and the
 * number of positions in the notes, and each whole layer's effect beside its row label.
 */
final class SweepFigures {
  private SweepFigures() {}

  static Figure of(SweepViewModel vm, String model, String mode) {
    AblationResult r = vm.resultProperty().get();
    if (r == null) {
      throw new HeadScopeException("Run the ablation sweep first.");
    }
    SweepViewModel.Metric metric = vm.metricProperty().get();
    boolean kl = metric == SweepViewModel.Metric.KL;
    double[][] values = new double[r.layers()][r.heads()];
    List<String> rows = new ArrayList<>();
    for (int l = 0; l < r.layers(); l++) {
      for (int h = 0; h < r.heads(); h++) {
        values[l][h] = vm.value(l, h);
      }
      rows.add(r.hasLayers() ? String.format(Locale.ROOT, kl ? "L%d (layer off %.2f)" : "L%d (layer off %+.2f)", l + 1,
          vm.value(l, -1)) : "L" + (l + 1));
    }
    List<String> cols = new ArrayList<>();
    for (int h = 0; h < r.heads(); h++) {
      cols.add("h" + (h + 1));
    }
    List<String> notes = List.of(
        "each head switched off alone (" + mode + "), then each whole layer; metric: " + metric,
        String.format(Locale.ROOT, "%d masked position(s) probed; intact log-prob %.3f, accuracy %.0f%%",
            r.positions(), r.baselineLogprob(), 100 * r.baselineAccuracy()));
    String meaning = kl ? "KL(intact ‖ off): larger = the prediction changed more"
        : "red: switching the head off lowered it (the head helped); blue: raised it";
    return MatrixFigure.of(model + " · ablation sweep: " + metric, notes, vm.inputProperty().get(), rows, cols,
        values, !kl, meaning, 36, true);
  }
}
