package io.headscope.app.gui.main;

import io.headscope.model.Head;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.layout.VBox;

/** The selected head's facts: its name, its switch, and (when the classifier is available) its category and statistics. */
public final class HeadPanel extends VBox {
  private final MainViewModel vm;
  private final Label title = new Label();
  private final Button power = new Button();
  private final VBox details = new VBox(2);

  HeadPanel(MainViewModel vm) {
    this.vm = vm;
    setId("head-panel");
    setSpacing(4);
    setPadding(new Insets(6));
    title.setStyle("-fx-font-weight: bold;");
    power.setId("head-power");
    power.setOnAction(e -> {
      Head h = vm.selectedProperty().get();
      if (h != null) {
        vm.toggleHead(h);
      }
    });
    getChildren().addAll(title, power, details);
    vm.selectedProperty().addListener((o, a, b) -> refresh());
    vm.maskProperty().addListener((o, a, b) -> refresh());
    refresh();
  }

  /** Where the analysis panels (category, scores, statistics, token types) go. */
  public VBox details() {
    return details;
  }

  private void refresh() {
    Head h = vm.selectedProperty().get();
    power.setVisible(h != null);
    if (h == null) {
      title.setText("Click a head in the grid");
      return;
    }
    boolean off = vm.maskProperty().get().isOff(h);
    title.setText("Head " + h + (off ? "  — switched OFF" : ""));
    title.setStyle("-fx-font-weight: bold;" + (off ? "-fx-text-fill: #d62728;" : ""));
    power.setText(off ? "Switch " + h + " back on" : "Switch " + h + " off");
  }
}
