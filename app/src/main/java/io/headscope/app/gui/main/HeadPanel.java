package io.headscope.app.gui.main;

import io.headscope.app.gui.facts.HeadFactsView;
import io.headscope.app.gui.facts.HeadFactsViewModel;
import io.headscope.model.Head;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/** The selected head: its name and switch, then its facts (category, scores, statistics, token types). */
public final class HeadPanel extends ScrollPane {
  private final MainViewModel vm;
  private final Label title = new Label();
  private final Button power = new Button();
  private final HeadFactsViewModel factsVm;
  private final HeadFactsView facts;

  HeadPanel(MainViewModel vm) {
    this.vm = vm;
    this.factsVm = new HeadFactsViewModel(vm);
    this.facts = new HeadFactsView(factsVm);
    setId("head-panel");
    setFitToWidth(true);
    title.setStyle("-fx-font-weight: bold;");
    title.setId("panel-title");
    power.setId("head-power");
    power.setOnAction(e -> {
      Head h = vm.selectedProperty().get();
      if (h != null) {
        vm.toggleHead(h);
      }
    });
    HBox top = new HBox(8, title, power);
    top.setAlignment(Pos.CENTER_LEFT);
    VBox box = new VBox(4, top, facts);
    box.setPadding(new Insets(6));
    setContent(box);
    vm.selectedProperty().addListener((o, a, b) -> refresh());
    vm.maskProperty().addListener((o, a, b) -> refresh());
    refresh();
  }

  public HeadFactsViewModel factsViewModel() {
    return factsVm;
  }

  public HeadFactsView facts() {
    return facts;
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
