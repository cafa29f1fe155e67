package io.headscope.app.gui.main;

import io.headscope.app.gui.fxml.ViewLoader;
import io.headscope.app.gui.main.facts.HeadFactsView;
import io.headscope.app.gui.main.facts.HeadFactsViewModel;
import io.headscope.app.gui.style.States;
import io.headscope.model.core.Head;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.VBox;

/** The selected head: its name and switch, then its facts (category, scores, statistics, token types). */
public final class HeadPanel extends BorderPane {
  private final MainViewModel vm;
  private final HeadFactsViewModel factsVm;
  private final HeadFactsView facts;
  @FXML private Label title;
  @FXML private Button power;
  @FXML private VBox factsBox;
  @FXML private VBox chartBox;
  @FXML private Label chartNote;

  HeadPanel(MainViewModel vm) {
    this.vm = vm;
    this.factsVm = new HeadFactsViewModel(vm);
    this.facts = new HeadFactsView(factsVm);
    ViewLoader.load(this);
    factsBox.getChildren().add(facts);
    chartBox.getChildren().add(facts.layerChart());
    chartNote.setText(chartNote(factsVm));
    vm.modelProperty().addListener((o, a, b) -> chartNote.setText(chartNote(factsVm)));
    vm.selectedProperty().addListener((o, a, b) -> refresh());
    vm.maskProperty().addListener((o, a, b) -> refresh());
    refresh();
  }

  @FXML
  private void togglePower() {
    Head h = vm.selectedProperty().get();
    if (h != null) {
      vm.toggleHead(h);
    }
  }

  public HeadFactsViewModel factsViewModel() {
    return factsVm;
  }

  public HeadFactsView facts() {
    return facts;
  }

  /** What the per-layer chart shows, in the loaded model's words (its own special tokens; a decoder's sink). */
  static String chartNote(HeadFactsViewModel facts) {
    if (facts.categoriesWithheld()) {
      return "Attention on the first token (the attention sink), punctuation and other tokens, per layer (mean over "
          + "its heads and the query rows, from the run's summaries: weights only). The selected head's layer is tinted.";
    }
    var n = facts.names();
    return "Attention on " + n.cls() + ", " + n.sep() + ", punctuation and other tokens, per layer (mean over its "
        + "heads): left bar the weights, right bar norm-weighted (Kobayashi). The selected head's layer is tinted.";
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
