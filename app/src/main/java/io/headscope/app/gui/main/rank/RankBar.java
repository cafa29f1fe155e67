package io.headscope.app.gui.main.rank;

import io.headscope.app.gui.fxml.ViewLoader;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.VBox;

/**
 * The ranking of heads above the grid: choose a number, how many heads and the order; the top heads
 * appear as buttons (a click selects the head) and are marked in the grid with their place.
 */
public final class RankBar extends VBox {
  private final RankViewModel vm;
  @FXML private ChoiceBox<String> measure;
  @FXML private Spinner<Integer> top;
  @FXML private ToggleButton order;
  @FXML private Button clear;
  @FXML private FlowPane list;

  public RankBar(RankViewModel vm) {
    this.vm = vm;
    ViewLoader.load(this);
    measure.setItems(vm.choices());
    measure.valueProperty().bindBidirectional(vm.chosenProperty());
    measure.setTooltip(new Tooltip("Rank every head by this number (the current input's scores, or what the "
        + "Linguistics and Sweep screens computed): the top ones are named here and numbered in the grid."));
    SpinnerValueFactory.IntegerSpinnerValueFactory counts = new SpinnerValueFactory.IntegerSpinnerValueFactory(1, 1024,
        vm.topProperty().get());
    top.setValueFactory(counts);
    counts.valueProperty().addListener((o, a, b) -> {
      if (b != null) {
        vm.topProperty().set(b);
      }
    });
    vm.topProperty().addListener((o, a, b) -> counts.setValue(b.intValue()));
    order.selectedProperty().bindBidirectional(vm.largestFirstProperty());
    order.textProperty().bind(vm.largestFirstProperty().map(l -> l ? "largest first" : "smallest first"));
    order.setTooltip(new Tooltip("Click to rank the other way round"));
    clear.setOnAction(e -> vm.clear());
    clear.visibleProperty().bind(vm.chosenProperty().isNotEqualTo(RankViewModel.NONE));
    top.disableProperty().bind(vm.chosenProperty().isEqualTo(RankViewModel.NONE));
    order.disableProperty().bind(top.disableProperty());
    vm.ranked().addListener((ListChangeListener<RankViewModel.Ranked>) c -> refresh());
    refresh();
  }

  private void refresh() {
    list.getChildren().clear();
    for (RankViewModel.Ranked r : vm.ranked()) {
      Button b = new Button(r.toString());
      b.setId("rank-" + r.head());
      b.getStyleClass().add("rank-item");
      b.setFocusTraversable(false);
      b.setOnAction(e -> vm.open(r));
      list.getChildren().add(b);
    }
  }
}
