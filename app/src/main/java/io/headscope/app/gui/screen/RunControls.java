package io.headscope.app.gui.screen;

import javafx.beans.value.ObservableBooleanValue;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;

/** The run row every screen has, bound once: Run, Cancel, a progress bar while it runs, the status line. */
public final class RunControls {
  private RunControls() {}

  /**
   * @param start what Run does
   * @param cannotRun true when Run makes no sense besides a running job (no model, nothing picked)
   */
  public static void bind(ScreenModel<?> vm, Runnable start, ObservableBooleanValue cannotRun, Button run,
      Button cancel, ProgressBar bar, Label status) {
    run.disableProperty().bind(vm.runningProperty().or(cannotRun));
    run.setOnAction(e -> start.run());
    cancel.disableProperty().bind(vm.runningProperty().not());
    cancel.setOnAction(e -> vm.cancel());
    bar.progressProperty().bind(vm.progressProperty());
    bar.visibleProperty().bind(vm.runningProperty());
    bar.managedProperty().bind(bar.visibleProperty());
    status.textProperty().bind(vm.statusProperty());
  }
}
