package io.headscope.app.gui.flow;

import io.headscope.app.gui.chart.HeatmapPane;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.HeadMatrix;
import java.util.List;
import java.util.Locale;
import javafx.fxml.FXML;
import javafx.geometry.Point2D;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * The Information flow screen: rollout after the chosen layer, or flow into the last layer, drawn with
 * the head view's {@link HeatmapPane} (token axes, hover outline), its colour scale and a read-out.
 */
public final class FlowView extends ScreenView<FlowViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("flow", "Flow", "Rollout, flow",
      "Information flow: attention rollout and flow (Abnar & Zuidema)",
      "Information flow: attention rollout, attention flow and token Jacobians",
      c -> new FlowView(new FlowViewModel(c.session()), c));

  @Override
  public List<ExportItem> exports() {
    return List.of(whenDone("export-rollout", "Rollout and flow JSON…", this::exportRolloutJson),
        new ExportItem("export-flow-figure", "Rollout or flow as figure (PNG 300 dpi or SVG)…", this::exportFigure,
            vm.matrixProperty().isNull()));
  }

  @FXML private Button jacobianButton;
  @FXML private Label correlationLabel;
  @FXML private ChoiceBox<FlowViewModel.Show> showChoice;
  @FXML private Spinner<Integer> layerSpinner;
  @FXML private ScrollPane scroll;
  @FXML private HeatmapPane heatmap;
  @FXML private Canvas scale;
  @FXML private Label hover;
  private double cell = 16;

  public FlowView(FlowViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    runBar.bind(vm, vm::compute, context.session().traceProperty().isNull(), statusLabel);
    // the Jacobian is Compute's second action: beside it, and off when it is off
    runBar.getChildren().add(1, jacobianButton);
    jacobianButton.disableProperty().bind(runBar.runButton().disableProperty());
    correlationLabel.textProperty().bind(vm.correlationProperty());
    correlationLabel.visibleProperty().bind(vm.correlationProperty().isNotEmpty());
    correlationLabel.managedProperty().bind(correlationLabel.visibleProperty());
    showChoice.getItems().setAll(FlowViewModel.Show.values());
    showChoice.valueProperty().bindBidirectional(vm.showProperty());
    // the top is the model's number of layers once there is a result; until then, none is clamped away
    SpinnerValueFactory.IntegerSpinnerValueFactory layers =
        new SpinnerValueFactory.IntegerSpinnerValueFactory(1, Integer.MAX_VALUE, vm.layerProperty().get());
    layerSpinner.setValueFactory(layers);
    layerSpinner.visibleProperty().bind(vm.showProperty().isEqualTo(FlowViewModel.Show.ROLLOUT)
        .or(vm.showProperty().isEqualTo(FlowViewModel.Show.JACOBIAN)));
    layers.valueProperty().addListener((o, a, b) -> {
      if (b != null) {
        vm.layerProperty().set(b);
      }
    });
    vm.layerProperty().addListener((o, a, b) -> layers.setValue(b.intValue()));
    vm.resultProperty().addListener((o, a, b) -> {
      if (b != null) {
        layers.setMax(b.rollout().length);
        layers.setValue(vm.layerProperty().get());
      }
    });
    heatmap.setOnMouseMoved(e -> {
      int[] rc = heatmap.cellAt(e.getX(), e.getY());
      heatmap.hover(rc[0], rc[1]);
      hover.setText(rc[0] < 0 ? "Point at a cell to read it" : vm.describe(rc[0], rc[1]));
    });
    heatmap.setOnMouseExited(e -> heatmap.hover(-1, -1));
    scroll.hvalueProperty().addListener((o, a, b) -> heatmap.setVisibleArea(HeatmapPane.visibleArea(scroll, heatmap)));
    scroll.vvalueProperty().addListener((o, a, b) -> heatmap.setVisibleArea(HeatmapPane.visibleArea(scroll, heatmap)));
    scroll.viewportBoundsProperty().addListener((o, a, b) -> redraw());
    vm.matrixProperty().addListener((o, a, b) -> redraw());
    redraw();
  }

  @FXML
  private void computeJacobian() {
    vm.computeJacobian();
  }

  /** Asks for a file and writes the JSON of {@code headscope rollout --flow}, or of {@code jacobian} when it is shown. */
  @FXML
  public void exportJson() {
    if (vm.showProperty().get() == FlowViewModel.Show.JACOBIAN) {
      String model = vm.modelName();
      context.dialogs().export("Jacobian JSON", "json", "jacobian.json", vm.jacobianProperty()::get,
          (j, file) -> FlowViewModel.writeJacobianJson(model, j, file));
    } else {
      exportRolloutJson();
    }
  }

  /** Asks for a file and writes the JSON of {@code headscope rollout --flow}. */
  public void exportRolloutJson() {
    context.dialogs().export("rollout JSON", "json", "rollout.json", vm.resultProperty()::get,
        FlowViewModel::writeJson);
  }

  /** The drawn matrix as a figure (PNG at 300 dpi or SVG). */
  @FXML
  public void exportFigure() {
    context.dialogs().exportFigure("flow", vm::figure);
  }

  /** For tests: the centre of cell (row, col) in screen coordinates. */
  public Point2D cellOnScreen(int row, int col) {
    double label = HeatmapPane.margin(cell, cell);
    return heatmap.localToScreen(label + (col + 0.5) * cell, label + (row + 0.5) * cell);
  }

  /** The whole map fits the pane (square cells, labelled when they can be). */
  private void redraw() {
    HeadMatrix m = vm.matrixProperty().get();
    double w = scroll.getViewportBounds().getWidth();
    double h = scroll.getViewportBounds().getHeight();
    if (m != null && w > 0 && h > 0) {
      double fit = Math.min((w - HeatmapPane.LABEL - 6) / m.cols(), (h - HeatmapPane.LABEL - 6) / m.rows());
      cell = Math.max(HeatmapPane.LABELLED_CELL, Math.min(40, fit));
    }
    heatmap.show(m, cell, cell, false);
    heatmap.setVisibleArea(HeatmapPane.visibleArea(scroll, heatmap));
    drawScale(m);
  }

  /** The head view's colour scale: 0 white to the largest value navy. */
  private void drawScale(HeadMatrix m) {
    GraphicsContext g = scale.getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, scale.getWidth(), scale.getHeight());
    double max = m == null ? 1 : m.max();
    for (int x = 0; x < 120; x++) {
      g.setFill(FxColors.scale(x / 119.0 * max, max));
      g.fillRect(38 + x, 2, 1, 12);
    }
    g.setStroke(Color.gray(0.5));
    g.strokeRect(38, 2, 120, 12);
    g.setFill(Color.BLACK);
    g.setFont(Font.font(10));
    g.setTextAlign(TextAlignment.RIGHT);
    g.fillText("0", 35, 12);
    g.setTextAlign(TextAlignment.LEFT);
    g.fillText(String.format(Locale.ROOT, "%.2f", max), 161, 12);
  }
}
