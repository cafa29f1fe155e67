package io.headscope.app.gui.sweep;

import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.app.gui.style.FxColors;
import io.headscope.analysis.ablation.AblationResult;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.fxml.FXML;
import javafx.geometry.VPos;
import javafx.scene.Node;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/** The sweep: a run button with progress and Cancel, and the layers x heads heatmap of effects. */
public final class SweepView extends ScreenView<SweepViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("sweep", "Causes", "Sweep",
      "Ablation sweep: every head off alone", "Ablation sweep: every head switched off in turn, the metric you choose",
      c -> new SweepView(new SweepViewModel(c.session()), c));

  @Override
  public List<ExportItem> exports() {
    return List.of(whenDone("export-ablation", "Ablation CSV (sweep)…", this::exportCsv),
        new ExportItem("export-sweep-figure", "Sweep as figure (PNG 300 dpi or SVG)…",
            () -> context.dialogs().exportFigure("sweep", vm::figure),
            vm.resultProperty().isNull().and(vm.importanceProperty().isNull())));
  }

  private static final double LEFT = 34;
  private static final double TOP = 20;
  private static final double GAP = 12;
  private double cell = 30;
  @FXML private Button exportButton;
  @FXML private ChoiceBox<SweepViewModel.Metric> metricChoice;
  @FXML private Label inputLabel;
  @FXML private ScrollPane scroll;
  @FXML private Canvas canvas;
  @FXML private Label hover;
  @FXML private Label captionLabel;
  @FXML private Label titleLabel;
  @FXML private Label staleLabel;

  public SweepView(SweepViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    runBar.bind(vm, vm::run, new SimpleBooleanProperty(false), statusLabel);
    // A half-run sweep is exported only after Cancel, when it is marked partial.
    exportButton.disableProperty().bind(vm.resultProperty().isNull().or(vm.runningProperty()));
    captionLabel.textProperty().bind(vm.captionProperty());
    metricChoice.getItems().setAll(SweepViewModel.Metric.values());
    metricChoice.valueProperty().bindBidirectional(vm.metricProperty());
    // the measure's entry names what a run would measure now (set under Predictions), so the list
    // never offers a choice it does not decide
    showMeasure(vm.chosenWordsProperty().get());
    vm.chosenWordsProperty().addListener((o, a, b) -> showMeasure(b));
    titleLabel.textProperty().bind(vm.titleProperty());
    staleLabel.textProperty().bind(vm.staleReasonProperty());
    staleLabel.visibleProperty().bind(vm.staleProperty());
    staleLabel.managedProperty().bind(staleLabel.visibleProperty());
    // a stale result invites a rerun from the button itself
    runBar.runButton().textProperty().bind(vm.staleProperty().map(s -> s ? "Run again" : "Run"));
    vm.staleProperty().addListener((o, a, b) -> redraw());
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
    vm.importanceProperty().addListener((o, a, b) -> redraw());
    vm.metricProperty().addListener((o, a, b) -> redraw());
    scroll.viewportBoundsProperty().addListener((o, a, b) -> {
      int[] size = size();
      if (size != null) {
        cell = Math.max(14, Math.min(44, Math.min((b.getWidth() - LEFT - GAP - 10) / (size[1] + 1),
            (b.getHeight() - TOP - 10) / size[0])));
      }
      redraw();
    });
    redraw();
  }

  private void showMeasure(String words) {
    metricChoice.setConverter(new javafx.util.StringConverter<>() {
      @Override
      public String toString(SweepViewModel.Metric m) {
        return m == null ? "" : m == SweepViewModel.Metric.MEASURE ? "Δ " + words : m.toString();
      }

      @Override
      public SweepViewModel.Metric fromString(String s) {
        return null;
      }
    });
  }

  /** {layers, heads} of what the metric shows, or null when there is nothing to draw. */
  private int[] size() {
    if (!vm.hasValues()) {
      return null;
    }
    if (vm.metricProperty().get() == SweepViewModel.Metric.IMPORTANCE) {
      double[][] imp = vm.importanceProperty().get().importance();
      return new int[] {imp.length, imp[0].length};
    }
    AblationResult r = vm.resultProperty().get();
    return new int[] {r.layers(), r.heads()};
  }

  private boolean layerColumn() {
    return vm.metricProperty().get() != SweepViewModel.Metric.IMPORTANCE && vm.resultProperty().get() != null
        && vm.resultProperty().get().hasLayers();
  }

  /** {layer, head} under a point, head -1 for the whole-layer column; null outside. */
  private int[] cellAt(double x, double y) {
    int[] size = size();
    if (size == null) {
      return null;
    }
    int l = (int) Math.floor((y - TOP) / cell);
    if (y < TOP || l >= size[0]) {
      return null;
    }
    double gx = x - LEFT;
    if (gx >= 0 && gx < size[1] * cell) {
      return new int[] {l, (int) (gx / cell)};
    }
    double lx = gx - size[1] * cell - GAP;
    if (layerColumn() && lx >= 0 && lx < cell) {
      return new int[] {l, -1};
    }
    return null;
  }

  /**
   * Heads on one scale and whole layers on their own (a layer's effect dwarfs a head's), each signed
   * metric on the diverging scale; a cell not measured yet (a sweep in progress or cancelled) is grey
   * and hatched.
   */
  private void redraw() {
    int[] size = size();
    GraphicsContext g = canvas.getGraphicsContext2D();
    if (size == null) {
      canvas.setWidth(10);
      canvas.setHeight(10);
      g.clearRect(0, 0, 10, 10);
      return;
    }
    int layers = size[0];
    int heads = size[1];
    boolean withLayers = layerColumn();
    canvas.setWidth(LEFT + (heads + 1) * cell + GAP + 6);
    canvas.setHeight(TOP + layers * cell + 6);
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, canvas.getWidth(), canvas.getHeight());
    boolean signed = vm.signed();
    double maxHead = 1e-12;
    double maxLayer = 1e-12;
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        double v = vm.value(l, h);
        if (!Double.isNaN(v)) {
          maxHead = Math.max(maxHead, Math.abs(v));
        }
      }
      double v = withLayers ? vm.value(l, -1) : Double.NaN;
      if (!Double.isNaN(v)) {
        maxLayer = Math.max(maxLayer, Math.abs(v));
      }
    }
    g.setFont(Font.font(Math.min(10, cell * 0.3)));
    g.setTextAlign(TextAlignment.CENTER);
    g.setTextBaseline(VPos.CENTER);
    for (int l = 0; l < layers; l++) {
      for (int h = -1; h < heads; h++) {
        if (h < 0 && !withLayers) {
          continue;
        }
        double v = vm.value(l, h);
        double max = h < 0 ? maxLayer : maxHead;
        double x = h < 0 ? LEFT + heads * cell + GAP : LEFT + h * cell;
        double y = TOP + l * cell;
        if (Double.isNaN(v)) {
          g.setFill(Color.gray(0.93));
          g.fillRect(x, y, cell - 1, cell - 1);
          g.setStroke(Color.gray(0.75));
          g.strokeLine(x, y + cell - 1, x + cell - 1, y);
          continue;
        }
        g.setFill(signed ? FxColors.diverging(v, max) : FxColors.scale(v, max));
        g.fillRect(x, y, cell - 1, cell - 1);
        if (cell >= 28) {
          g.setFill(Math.abs(v) > 0.6 * max ? Color.WHITE : Color.BLACK);
          // a value that rounds to zero reads 0.00, never -0.00 or +0.00
          g.fillText(Math.abs(v) < 0.005 ? "0.00" : String.format(Locale.ROOT, signed ? "%+.2f" : "%.2f", v),
              x + cell / 2, y + cell / 2);
        }
      }
    }
    g.setFill(Color.BLACK);
    g.setFont(Font.font(10));
    for (int l = 0; l < layers; l++) {
      g.fillText("L" + (l + 1), LEFT / 2, TOP + (l + 0.5) * cell);
    }
    for (int h = 0; h < heads; h++) {
      g.fillText("h" + (h + 1), LEFT + (h + 0.5) * cell, TOP / 2);
    }
    if (withLayers) {
      g.fillText("layer", LEFT + heads * cell + GAP + cell / 2, TOP / 2);
    }
    if (vm.staleProperty().get()) {
      // a result computed for another choice is veiled and struck through, not shown as the new one
      double w = canvas.getWidth();
      double h = canvas.getHeight();
      g.setFill(Color.color(1, 1, 1, 0.55));
      g.fillRect(0, 0, w, h);
      g.setStroke(Color.gray(0.25));
      g.setLineWidth(3);
      g.strokeLine(LEFT, TOP, w - 6, h - 6);
      g.strokeLine(LEFT, h - 6, w - 6, TOP);
      g.setLineWidth(1);
    }
  }

  /** Asks for a file and writes the CSV with the bytes of the command line. */
  @FXML
  public void exportCsv() {
    context.dialogs().export("ablation CSV", "csv", "ablation.csv", vm::csv, SweepViewModel::writeCsv);
  }

  /** The Analysis menu entry starts the run at once, as it always did. */
  @Override
  public void onMenu() {
    vm.run();
  }

  /** The node a PNG export snapshots. */
  public Node chartNode() {
    return canvas;
  }
}
