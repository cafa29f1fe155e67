package io.headscope.app.gui.lens;

import io.headscope.analysis.lens.LensRow;
import io.headscope.analysis.saliency.SaliencyResult;
import io.headscope.app.gui.chart.SignedHeadGrid;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.app.gui.style.FxColors;
import io.headscope.model.core.Head;
import java.util.Locale;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.fxml.FXML;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.VBox;

/**
 * The Logit lens screen: what each layer predicts at the [MASK], each token's saliency as a strip, and each
 * head's direct logit attribution as a grid (a click opens the head in the window).
 */
public final class LensView extends ScreenView<LensViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("lens", "Causes", "Logit lens",
      "Logit lens and saliency: when the model knows, and from which tokens…",
      "What each layer predicts at the [MASK], and which tokens move the followed word",
      c -> new LensView(new LensViewModel(c.session()), c));

  private static final double ROW = 24;
  @FXML private TextField targetField;
  @FXML private TextField contrastField;
  @FXML private CheckBox integratedBox;
  @FXML private ChoiceBox<io.headscope.analysis.saliency.Baseline> baselineChoice;
  @FXML private VBox results;
  @FXML private FlowPane saliencyStrip;
  @FXML private Label tableTitle;
  @FXML private TableView<LensRow> table;
  @FXML private ChoiceBox<LensViewModel.DlaShown> dlaChoice;
  @FXML private Label dlaNote;
  @FXML private SignedHeadGrid dlaGrid;
  @FXML private Label dlaHover;
  @FXML private javafx.scene.control.ScrollPane scroll;
  /** The head last clicked in the grid, outlined. */
  private Head opened;

  public LensView(LensViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(dlaHover);
    targetField.textProperty().bindBidirectional(vm.targetProperty());
    contrastField.textProperty().bindBidirectional(vm.contrastProperty());
    integratedBox.selectedProperty().bindBidirectional(vm.integratedProperty());
    // zero alone for a model without a mask token (GPT-2): the [MASK] baseline cannot be built there
    baselineChoice.setItems(vm.baselines());
    baselineChoice.valueProperty().bindBidirectional(vm.baselineProperty());
    baselineChoice.setConverter(new javafx.util.StringConverter<>() {
      @Override
      public String toString(io.headscope.analysis.saliency.Baseline b) {
        return b == null ? "" : vm.baselineWords(b);
      }

      @Override
      public io.headscope.analysis.saliency.Baseline fromString(String s) {
        return null;
      }
    });
    bindRun(vm::run);
    results.visibleProperty().bind(vm.resultProperty().isNotNull());
    column("layer", 90, r -> r.layer() == 0 ? "embeddings" : "layer " + r.layer());
    column("top token", 150, r -> String.format(Locale.ROOT, "%s  %.3f", vm.token(r.top()[0]), r.topProbs()[0]));
    column("rank", 50, r -> r.targetRank() == 0 ? "" : String.valueOf(r.targetRank()));
    column("P(target)", 80, r -> Double.isNaN(r.targetProb()) ? "" : String.format(Locale.ROOT, "%.4f", r.targetProb()));
    column("contrast rank", 60, r -> r.contrastRank() == 0 ? "" : String.valueOf(r.contrastRank()));
    column("logit diff", 80, r -> Double.isNaN(r.contrastProb()) ? "" : String.format(Locale.ROOT, "%+.3f", r.logitDiff()));
    // the columns share the screen's width: no sideways scrolling at 1280
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY);
    table.setFixedCellSize(ROW);
    table.prefHeightProperty().bind(Bindings.size(table.getItems()).multiply(ROW).add(ROW + 16));
    table.minHeightProperty().bind(table.prefHeightProperty());
    vm.resultProperty().addListener((o, a, b) -> show());
    dlaChoice.getItems().setAll(LensViewModel.DlaShown.values());
    dlaChoice.valueProperty().bindBidirectional(vm.dlaShownProperty());
    dlaChoice.valueProperty().addListener((o, a, b) -> showDla());
    // direct logits have no natural unit of 1: the largest head is full colour
    dlaGrid.setFullScale(0);
    scroll.viewportBoundsProperty().addListener((o, a, b) -> {
      if (a.getWidth() != b.getWidth() || a.getHeight() != b.getHeight()) {
        showDla();
      }
    });
    dlaGrid.onHead(h -> {
      opened = h;
      vm.select(h);
      showDla();
    }, h -> dlaHover.setText(h == null ? "Point at a head to read it; click to open it." : vm.describe(h)));
  }

  private void showDla() {
    double[][] grid = vm.dlaGrid();
    LensViewModel.Result r = vm.resultProperty().get();
    dlaChoice.setDisable(r == null || r.dla() == null || r.dla().contrast() < 0);
    dlaNote.setText(vm.dlaNote());
    // as wide as the pane allows (cells up to 34 px), and low enough that the heading, the note and the whole
    // grid fit the pane's height together; never under 24 px, where the numbers stop being written
    double w = scroll.getViewportBounds().getWidth();
    double h = scroll.getViewportBounds().getHeight();
    double width = w > 0 ? w - 8 : 420;
    if (grid != null && grid.length > 0 && h > 0) {
      double cell = Math.max(24, (h - 150) / grid.length);
      width = Math.min(width, SignedHeadGrid.LEFT + 8 + cell * grid[0].length);
    }
    dlaGrid.show(grid == null ? new double[0][0] : grid, opened, width);
  }

  private void column(String title, double width, Function<LensRow, String> value) {
    TableColumn<LensRow, String> c = new TableColumn<>(title);
    c.setPrefWidth(width);
    c.setSortable(false);
    c.setCellValueFactory(cell -> new ReadOnlyStringWrapper(value.apply(cell.getValue())));
    table.getColumns().add(c);
  }

  private void show() {
    LensViewModel.Result r = vm.resultProperty().get();
    saliencyStrip.getChildren().clear();
    opened = null;
    showDla();
    if (r == null) {
      table.getItems().clear();
      return;
    }
    SaliencyResult s = r.saliency();
    double max = 0;
    for (double v : s.scores()) {
      max = Math.max(max, Math.abs(v));
    }
    for (int i = 0; i < s.tokens().size(); i++) {
      Label chip = new Label(s.tokens().get(i));
      chip.setId("lens-token-" + i);
      chip.getStyleClass().add("hs-saliency-chip");
      var colour = FxColors.diverging(s.scores()[i], max > 0 ? max : 1);
      chip.setBackground(new javafx.scene.layout.Background(new javafx.scene.layout.BackgroundFill(colour,
          new javafx.scene.layout.CornerRadii(3), javafx.geometry.Insets.EMPTY)));
      chip.setTextFill(colour.getBrightness() < 0.6 ? javafx.scene.paint.Color.WHITE : javafx.scene.paint.Color.BLACK);
      chip.setTooltip(new Tooltip(String.format(Locale.ROOT, "%s: %+.4f (%s)", s.tokens().get(i), s.scores()[i],
          s.method())));
      saliencyStrip.getChildren().add(chip);
    }
    int p = vm.firstPosition();
    tableTitle.setText(p < 0 ? "" : "What each layer predicts at " + r.tokens().get(p) + " (position " + p
        + "), read by the model's own output head");
    table.getItems().setAll(vm.rows(p));
  }
}
