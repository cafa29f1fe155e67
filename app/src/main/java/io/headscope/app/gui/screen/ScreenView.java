package io.headscope.app.gui.screen;

import io.headscope.app.gui.fxml.ViewLoader;
import javafx.beans.value.ObservableBooleanValue;
import javafx.fxml.FXML;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.layout.VBox;

/**
 * What every screen's view has, written once: its view model, the screen context, its layout from the
 * FXML file named after it, the run bar ({@code fx:id="runBar"}) and the status line
 * ({@code fx:id="statusLabel"}); it is the {@link Screen} the main window lists. A screen's view adds how
 * it shows the result and what it exports.
 *
 * @param <M> the screen's view model
 */
public abstract class ScreenView<M extends ScreenModel<?>> extends VBox implements Screen {
  protected final M vm;
  protected final ScreenContext context;
  @FXML protected RunBar runBar;
  @FXML protected Label statusLabel;

  protected ScreenView(M vm, ScreenContext context) {
    this.vm = vm;
    this.context = context;
    ViewLoader.load(this);
  }

  /**
   * Labels that describe what the pointer is over (a head of the old model's grid: "head 8-10 off") go back to
   * their text as it is now when another model is loaded: nothing of the old model stays on screen.
   */
  protected void blankOnNewModel(Label... labels) {
    for (Label l : labels) {
      String blank = l.getText();
      context.session().modelProperty().addListener((o, a, b) -> l.setText(blank));
    }
  }

  /** The screen's view model (tests and the screenshot tour drive it). */
  public M viewModel() {
    return vm;
  }

  @Override
  public Node view() {
    return this;
  }

  /** An export that is off until the screen has a result. */
  protected ExportItem whenDone(String id, String text, Runnable action) {
    return new ExportItem(id, text, action, vm.resultProperty().isNull());
  }

  /** Run starts {@code start}; it is off while the job runs and while no model is loaded. */
  protected void bindRun(Runnable start) {
    bindRun(start, javafx.beans.binding.Bindings.createBooleanBinding(() -> false));
  }

  /** Run starts {@code start}; it is off while the job runs, with no model, or while {@code cannotRun}. */
  protected void bindRun(Runnable start, ObservableBooleanValue cannotRun) {
    runBar.bind(vm, start, context.session().modelProperty().isNull().or(cannotRun), statusLabel);
  }
}
