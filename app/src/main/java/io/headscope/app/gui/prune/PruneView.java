package io.headscope.app.gui.prune;

import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.analysis.ablation.Pruning;
import java.nio.file.Path;
import javafx.fxml.FXML;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.Label;

/** Pruning curves: importance and random order in one line chart of the metric against the share pruned. */
public final class PruneView extends ScreenView<PruneViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("prune", "Causes", "Pruning",
      "Pruning curves: importance vs random order…",
      "Pruning curves: heads removed in order of importance, and at random",
      c -> new PruneView(new PruneViewModel(c.session()), c));


  @FXML private Label fileLabel;
  @FXML private LineChart<Number, Number> chart;
  @FXML private NumberAxis yAxis;
  @FXML private Button exportImportance;
  @FXML private Button exportRandom;

  public PruneView(PruneViewModel vm, ScreenContext context) {
    super(vm, context);
    fileLabel.textProperty().bind(vm.corpusProperty().map(p -> p.getFileName().toString()).orElse("no file"));
    bindRun(vm::run, vm.corpusProperty().isNull());
    exportImportance.disableProperty().bind(vm.resultProperty().isNull());
    exportRandom.disableProperty().bind(vm.resultProperty().isNull());
    vm.resultProperty().addListener((o, a, b) -> draw(b));
    draw(vm.resultProperty().get());
  }

  private void draw(PruneViewModel.Curves c) {
    chart.getData().clear();
    if (c == null) {
      return;
    }
    yAxis.setLabel(c.importance().metric());
    chart.getData().add(series("importance order", c.importance()));
    chart.getData().add(series("random order (seed " + PruneViewModel.SEED + ")", c.random()));
  }

  private static XYChart.Series<Number, Number> series(String name, Pruning.Curve curve) {
    XYChart.Series<Number, Number> s = new XYChart.Series<>();
    s.setName(name);
    for (Pruning.Step step : curve.steps()) {
      s.getData().add(new XYChart.Data<>(step.sharePruned(), step.metric()));
    }
    return s;
  }

  @FXML
  private void openFile() {
    Path p = context.dialogs().openFile(
        "A labelled file (text<TAB>label or text_a<TAB>text_b<TAB>label) for a classifier, "
        + "or a text file (one input per line) for masked-LM quality");
    if (p != null) {
      vm.corpusProperty().set(p);
    }
  }

  /** Asks for a file and writes the importance-order curve (the bytes of {@code headscope prune}). */
  @FXML
  public void exportImportance() {
    context.dialogs().export("pruning curve CSV (importance order)", "csv", "prune-importance.csv",
        () -> vm.resultProperty().get() == null ? null : vm.resultProperty().get().importance(),
        PruneViewModel::writeCsv);
  }

  /** Asks for a file and writes the random-order curve. */
  @FXML
  public void exportRandom() {
    context.dialogs().export("pruning curve CSV (random order)", "csv", "prune-random.csv",
        () -> vm.resultProperty().get() == null ? null : vm.resultProperty().get().random(),
        PruneViewModel::writeCsv);
  }
}
