package io.headscope.app.gui.layers;

import io.headscope.analysis.flow.StitchedPredictions;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.app.gui.screen.SourcePicker;
import io.headscope.app.gui.style.FxColors;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javafx.fxml.FXML;
import javafx.geometry.Point2D;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * The Layers screen: the 13 x 12 matrix of Δ log-prob on the diverging scale (red: worse than intact),
 * the intact diagonal framed, the read-out under the pointer, and a clicked cell's predictions.
 */
public final class LayersView extends ScreenView<LayersViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("layers", "Flow", "Layers",
      "Layers: which layers can stand in for which", "Layer compatibility: which layers can stand in for which",
      c -> new LayersView(new LayersViewModel(c.session()), c));

  @Override
  public List<ExportItem> exports() {
    return List.of(whenDone("export-layers", "Layer compatibility CSV…", this::exportCsv),
        whenDone("export-layers-figure", "Layer compatibility as figure (PNG 300 dpi or SVG)…", this::exportFigure));
  }

  private static final double LEFT = 96;
  private static final double TOP = 20;
  private double cell = 30;
  @FXML private SourcePicker sources;
  @FXML private ScrollPane scroll;
  @FXML private VBox results;
  @FXML private Canvas canvas;
  @FXML private Label hover;
  @FXML private Label cellStatus;
  @FXML private VBox predictionsBox;

  public LayersView(LayersViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    sources.bind(context, vm.sourceProperty(), List.of(LayersViewModel.CURRENT_INPUT));
    bindRun(vm::run);
    cellStatus.textProperty().bind(vm.cellStatusProperty());
    results.visibleProperty().bind(vm.resultProperty().isNotNull());
    vm.resultProperty().addListener((o, a, b) -> redraw());
    vm.predictionsProperty().addListener((o, a, b) -> showPredictions(b));
    canvas.setOnMouseMoved(e -> {
      int[] c = cellAt(e.getX(), e.getY());
      hover.setText(c == null ? " " : vm.describe(c[0], c[1]));
    });
    canvas.setOnMouseClicked(e -> {
      int[] c = cellAt(e.getX(), e.getY());
      if (c != null) {
        vm.select(c[0], c[1]);
      }
    });
    scroll.viewportBoundsProperty().addListener((o, a, b) -> {
      if (vm.columns() > 0) {
        // the matrix fits the width, and leaves room below for a clicked cell's predictions
        cell = Math.max(18, Math.min(40, Math.min((b.getWidth() - LEFT - 10) / vm.columns(),
            (b.getHeight() - TOP - 180) / vm.rows())));
      }
      redraw();
    });
  }

  /** Asks for a file and writes {@code compat.csv} (the bytes of {@code headscope layers}). */
  @FXML
  public void exportCsv() {
    context.dialogs().export("layer compatibility CSV", "csv", "compat.csv", vm.resultProperty()::get,
        LayersViewModel::writeCsv);
  }

  /** The matrix as a figure (PNG at 300 dpi or SVG), through the one figure renderer. */
  @FXML
  public void exportFigure() {
    context.dialogs().exportFigure("layers", vm::figure);
  }

  /** {from, to} under a point (to 1-based), or null outside the matrix. */
  private int[] cellAt(double x, double y) {
    int rows = vm.rows();
    int cols = vm.columns();
    if (rows == 0 || x < LEFT || y < TOP) {
      return null;
    }
    int i = (int) ((y - TOP) / cell);
    int j = (int) ((x - LEFT) / cell);
    return i < rows && j < cols ? new int[] {i, j + 1} : null;
  }

  /** For tests: the centre of cell (from, to) in screen coordinates. */
  public Point2D cellOnScreen(int from, int to) {
    return canvas.localToScreen(LEFT + (to - 0.5) * cell, TOP + (from + 0.5) * cell);
  }

  private void redraw() {
    GraphicsContext g = canvas.getGraphicsContext2D();
    int rows = vm.rows();
    int cols = vm.columns();
    if (rows == 0) {
      canvas.setWidth(10);
      canvas.setHeight(10);
      g.clearRect(0, 0, 10, 10);
      predictionsBox.getChildren().clear();
      return;
    }
    double[][] d = vm.deltas();
    double max = 1e-12;
    for (double[] row : d) {
      for (double v : row) {
        max = Math.max(max, Math.abs(v));
      }
    }
    canvas.setWidth(LEFT + cols * cell + 6);
    canvas.setHeight(TOP + rows * cell + 6);
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, canvas.getWidth(), canvas.getHeight());
    g.setTextAlign(TextAlignment.CENTER);
    g.setTextBaseline(VPos.CENTER);
    g.setFont(Font.font(Math.min(10, cell * 0.36)));
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        double v = d[i][j];
        double x = LEFT + j * cell;
        double y = TOP + i * cell;
        g.setFill(FxColors.diverging(v, max));
        g.fillRect(x, y, cell - 1, cell - 1);
        if (cell >= 24) {
          g.setFill(Math.abs(v) > 0.6 * max ? Color.WHITE : Color.BLACK);
          // no "-0.0" on the intact diagonal, whose delta is float noise
          g.fillText(String.format(Locale.ROOT, "%+.1f", Math.abs(v) < 0.05 ? 0.0 : v), x + cell / 2, y + cell / 2);
        }
      }
    }
    // the intact model: j = i + 1
    g.setStroke(Color.BLACK);
    g.setLineWidth(2);
    for (int i = 0; i < rows && i < cols; i++) {
      g.strokeRect(LEFT + i * cell + 1, TOP + i * cell + 1, cell - 3, cell - 3);
    }
    g.setFill(Color.BLACK);
    g.setFont(Font.font(10));
    g.setTextAlign(TextAlignment.RIGHT);
    for (int i = 0; i < rows; i++) {
      g.fillText(i == 0 ? "h0 (embeddings)" : "h" + i, LEFT - 6, TOP + (i + 0.5) * cell);
    }
    g.setTextAlign(TextAlignment.CENTER);
    for (int j = 0; j < cols; j++) {
      g.fillText("L" + (j + 1), LEFT + (j + 0.5) * cell, TOP / 2);
    }
  }

  private void showPredictions(StitchedPredictions s) {
    predictionsBox.getChildren().clear();
    if (s == null) {
      return;
    }
    for (int p = 0; p < s.positions().length; p++) {
      Label where = new Label(String.format(Locale.ROOT, "position %d (%s), scored target: %s", s.positions()[p],
          s.tokens().get(s.positions()[p]), s.targets()[p]));
      where.getStyleClass().add("hs-small-heading");
      Label intact = new Label("intact: " + guesses(s.intact().get(p)));
      Label stitched = new Label("h" + s.from() + " → layer " + s.to() + ": " + guesses(s.stitched().get(p)));
      intact.getStyleClass().add("hs-readout");
      stitched.getStyleClass().add("hs-readout");
      stitched.setId("layers-stitched-" + p);
      predictionsBox.getChildren().addAll(where, intact, stitched);
    }
  }

  private static String guesses(List<StitchedPredictions.Guess> g) {
    return g.stream().map(x -> String.format(Locale.ROOT, "%s %.3f", x.token(), x.probability()))
        .collect(Collectors.joining(" · "));
  }
}
