package io.headscope.app.gui.screen;

import javafx.beans.value.ObservableBooleanValue;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.layout.HBox;

/**
 * The run row every screen has: Run, Cancel and a progress bar while the job runs, bound once to a
 * {@link ScreenModel}. In FXML: {@code <RunBar fx:id="runBar" prefix="layers"/>} gives the ids
 * {@code layers-run}, {@code layers-cancel} and {@code layers-progress}; {@code runText="Draw"} and
 * {@code runId="draw"} name the button otherwise.
 */
public final class RunBar extends HBox {
  private final Button run = new Button("Run");
  private final Button cancel = new Button("Cancel");
  private final ProgressBar progress = new ProgressBar();
  private String prefix = "";
  private String runId = "run";

  public RunBar() {
    super(6);
    setAlignment(Pos.CENTER_LEFT);
    run.setMinWidth(USE_PREF_SIZE);
    cancel.setMinWidth(USE_PREF_SIZE);
    progress.setPrefWidth(120);
    getChildren().addAll(run, cancel, progress);
  }

  public String getPrefix() {
    return prefix;
  }

  public void setPrefix(String p) {
    prefix = p;
    run.setId(p + "-" + runId);
    cancel.setId(p + "-cancel");
    progress.setId(p + "-progress");
  }

  public String getRunText() {
    return run.getText();
  }

  public void setRunText(String text) {
    run.setText(text);
  }

  public String getRunId() {
    return runId;
  }

  public void setRunId(String id) {
    runId = id;
    setPrefix(prefix);
  }

  /** The Run button, for a screen whose second action follows it (the Jacobian beside Compute). */
  public Button runButton() {
    return run;
  }

  /**
   * @param start what Run does
   * @param cannotRun true when Run makes no sense besides a running job (no model, nothing picked)
   * @param status the screen's status line
   */
  public void bind(ScreenModel<?> vm, Runnable start, ObservableBooleanValue cannotRun, Label status) {
    run.disableProperty().bind(vm.runningProperty().or(cannotRun));
    run.setOnAction(e -> start.run());
    bindJob(vm, status);
  }

  /** For a screen whose job another control starts (opening a treebank): no Run button. */
  public void bindCancel(ScreenModel<?> vm, Label status) {
    getChildren().remove(run);
    bindJob(vm, status);
  }

  private void bindJob(ScreenModel<?> vm, Label status) {
    cancel.disableProperty().bind(vm.runningProperty().not());
    cancel.setOnAction(e -> vm.cancel());
    progress.progressProperty().bind(vm.progressProperty());
    progress.visibleProperty().bind(vm.runningProperty());
    progress.managedProperty().bind(progress.visibleProperty());
    status.textProperty().bind(vm.statusProperty());
  }
}
