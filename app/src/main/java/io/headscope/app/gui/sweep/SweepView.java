package io.headscope.app.gui.sweep;

import io.headscope.app.gui.ViewLoader;
import io.headscope.app.gui.style.FxColors;
import io.headscope.model.ablation.AblationResult;
import java.util.Locale;
import javafx.fxml.FXML;
import javafx.geometry.VPos;
import javafx.scene.Node;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/** The sweep: a run button with progress and Cancel, and the layers x heads heatmap of effects. */
public final class SweepView extends VBox {
  private static final double LEFT = 34;
  private static final double TOP = 20;
  private static final double GAP = 12;
  private final SweepViewModel vm;
  private double cell = 30;
  @FXML private Button runButton;
  @FXML private Button cancelButton;
  @FXML private Button exportButton;
  private Runnable exportCsv = () -> { };
  @FXML private ProgressBar progressBar;
  @FXML private ChoiceBox<SweepViewModel.Metric> metricChoice;
  @FXML private Label statusLabel;
  @FXML private Label inputLabel;
  @FXML private ScrollPane scroll;
  @FXML private Canvas canvas;
  @FXML private Label hover;

  public SweepView(SweepViewModel vm) {
    this.vm = vm;
    ViewLoader.load(this);
    runButton.disableProperty().bind(vm.runningProperty());
    cancelButton.disableProperty().bind(vm.runningProperty().not());
    progressBar.progressProperty().bind(vm.progressProperty());
    progressBar.visibleProperty().bind(vm.runningProperty());
    progressBar.managedProperty().bind(progressBar.visibleProperty());
    exportButton.disableProperty().bind(vm.resultProperty().isNull());
    metricChoice.getItems().setAll(SweepViewModel.Metric.values());
    metricChoice.valueProperty().bindBidirectional(vm.metricProperty());
    statusLabel.textProperty().bind(vm.statusProperty());
    inputLabel.textProperty().bind(vm.inputProperty().map(s -> s.isEmpty() ? "" : "Input: " + s));
    canvas.setOnMouseMoved(e -> {
      int[] lh = cellAt(e.getX(), e.getY());
      hover.setText(lh == null ? " " : vm.describe(lh[0], lh[1]));
    });
    canvas.setOnMouseClicked(e -> {
      int[] lh = cellAt(e.getX(), e.getY());
      if (lh != null) {
        vm.select(lh[0], lh[1]);
      }
    });
    vm.resultProperty().addListener((o, a, b) -> redraw());
    vm.metricProperty().addListener((o, a, b) -> redraw());
    scroll.viewportBoundsProperty().addListener((o, a, b) -> {
      AblationResult r = vm.resultProperty().get();
      if (r != null) {
        cell = Math.max(14, Math.min(44, Math.min((b.getWidth() - LEFT - GAP - 10) / (r.heads() + 1),
            (b.getHeight() - TOP - 10) / r.layers())));
      }
      redraw();
    });
    redraw();
  }

  @FXML
  private void run() {
    vm.run();
  }

  @FXML
  private void cancel() {
    vm.cancel();
  }

  /** {layer, head} under a point, head -1 for the whole-layer column; null outside. */
  private int[] cellAt(double x, double y) {
    AblationResult r = vm.resultProperty().get();
    if (r == null) {
      return null;
    }
    int l = (int) Math.floor((y - TOP) / cell);
    if (y < TOP || l >= r.layers()) {
      return null;
    }
    double gx = x - LEFT;
    if (gx >= 0 && gx < r.heads() * cell) {
      return new int[] {l, (int) (gx / cell)};
    }
    double lx = gx - r.heads() * cell - GAP;
    if (r.hasLayers() && lx >= 0 && lx < cell) {
      return new int[] {l, -1};
    }
    return null;
  }

  private void redraw() {
    AblationResult r = vm.resultProperty().get();
    GraphicsContext g = canvas.getGraphicsContext2D();
    if (r == null) {
      canvas.setWidth(10);
      canvas.setHeight(10);
      g.clearRect(0, 0, 10, 10);
      return;
    }
    canvas.setWidth(LEFT + (r.heads() + 1) * cell + GAP + 6);
    canvas.setHeight(TOP + r.layers() * cell + 6);
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, canvas.getWidth(), canvas.getHeight());
    boolean signed = vm.metricProperty().get() != SweepViewModel.Metric.KL;
    double maxHead = 1e-12;
    double maxLayer = 1e-12;
    for (int l = 0; l < r.layers(); l++) {
      for (int h = 0; h < r.heads(); h++) {
        maxHead = Math.max(maxHead, Math.abs(vm.value(l, h)));
      }
      if (r.hasLayers()) {
        maxLayer = Math.max(maxLayer, Math.abs(vm.value(l, -1)));
      }
    }
    g.setFont(Font.font(Math.min(10, cell * 0.3)));
    g.setTextAlign(TextAlignment.CENTER);
    g.setTextBaseline(VPos.CENTER);
    for (int l = 0; l < r.layers(); l++) {
      for (int h = -1; h < r.heads(); h++) {
        if (h < 0 && !r.hasLayers()) {
          continue;
        }
        double v = vm.value(l, h);
        double max = h < 0 ? maxLayer : maxHead;

        double x = h < 0 ? LEFT + r.heads() * cell + GAP : LEFT + h * cell;
        double y = TOP + l * cell;
        g.setFill(signed ? FxColors.diverging(v, max) : FxColors.scale(v, max));
        g.fillRect(x, y, cell - 1, cell - 1);
        if (cell >= 28) {
          g.setFill(Math.abs(v) > 0.6 * max ? Color.WHITE : Color.BLACK);
          g.fillText(String.format(Locale.ROOT, signed ? "%+.2f" : "%.2f", v), x + cell / 2, y + cell / 2);
        }
      }
    }
    g.setFill(Color.BLACK);
    g.setFont(Font.font(10));
    for (int l = 0; l < r.layers(); l++) {
      g.fillText("L" + (l + 1), LEFT / 2, TOP + (l + 0.5) * cell);
    }
    for (int h = 0; h < r.heads(); h++) {
      g.fillText("h" + (h + 1), LEFT + (h + 0.5) * cell, TOP / 2);
    }
    if (r.hasLayers()) {
      g.fillText("layer", LEFT + r.heads() * cell + GAP + cell / 2, TOP / 2);
    }
  }

  /** What the Export CSV button does (the app writes the file where the user says). */
  public void setOnExportCsv(Runnable action) {
    exportCsv = action;
  }

  @FXML
  private void exportCsv() {
    exportCsv.run();
  }

  /** The node a PNG export snapshots. */
  public Node chartNode() {
    return canvas;
  }
}
