package io.headscope.app.gui.main;

import io.headscope.app.gui.style.States;
import io.headscope.app.gui.facts.HeadFactsView;
import io.headscope.app.gui.facts.HeadFactsViewModel;
import io.headscope.model.Head;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/** The selected head: its name and switch, then its facts (category, scores, statistics, token types). */
public final class HeadPanel extends BorderPane {
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
    title.getStyleClass().add("panel-title");
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
    VBox box = new VBox(4, facts);
    box.setPadding(new Insets(4));
    ScrollPane scroll = new ScrollPane(box);
    scroll.setFitToWidth(true);
    Label chartTitle = new Label("Attention on [CLS], [SEP], punctuation and other tokens, per layer (mean over its "
        + "heads): left bar the weights, right bar norm-weighted (Kobayashi). The selected head's layer is tinted.");
    chartTitle.setWrapText(true);
    chartTitle.getStyleClass().add("hs-small");
    VBox chartBox = new VBox(4, chartTitle, facts.layerChart());
    chartBox.setPadding(new Insets(4));
    Tab headTab = new Tab("This head", scroll);
    headTab.setId("tab-facts");
    Tab layerTab = new Tab("Token types per layer", new ScrollPane(chartBox));
    layerTab.setId("tab-layer-types");
    ((ScrollPane) layerTab.getContent()).setFitToWidth(true);
    TabPane tabs = new TabPane(headTab, layerTab);
    tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    top.setPadding(new Insets(4, 6, 2, 6));
    setTop(top);
    setCenter(tabs);
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
    title.pseudoClassStateChanged(States.OFF, off);
    power.setText(off ? "Switch " + h + " back on" : "Switch " + h + " off");
  }
}
