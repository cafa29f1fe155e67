package io.headscope.app.gui.head;

import io.headscope.app.gui.ViewLoader;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.HeadMatrix.Display;
import io.headscope.app.render.HeadMatrix.PairFilter;
import io.headscope.app.render.HeadMatrix;
import java.util.Locale;
import javafx.fxml.FXML;
import javafx.scene.Node;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Slider;
import javafx.scene.control.TabPane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;

/** The selected head, large: heatmap with token axes and a colour scale, or BertViz-style lines. */
public final class HeadView extends VBox {
  private final HeadViewModel vm;
  @FXML private HeatmapPane heatmap;
  @FXML private LinesPane lines;
  @FXML private Canvas scale;
  @FXML private Slider zoom;
  @FXML private Label title;
  @FXML private Label hover;
  @FXML private ScrollPane heatScroll;
  @FXML private TabPane tabs;
  @FXML private ChoiceBox<Display> displayChoice;
  @FXML private ChoiceBox<PairFilter> filterChoice;
  private boolean fitted;
  /** Cells of this many pixels carry legible token labels (a 7-point font). */
  private static final double READABLE_CELL = 8;

  public HeadView(HeadViewModel vm) {
    this.vm = vm;
    ViewLoader.load(this);
    displayChoice.getItems().setAll(Display.values());
    displayChoice.valueProperty().bindBidirectional(vm.displayProperty());
    filterChoice.getItems().setAll(PairFilter.values());
    filterChoice.valueProperty().bindBidirectional(vm.filterProperty());
    filterChoice.disableProperty().bind(vm.pairProperty().not());
    zoom.valueProperty().addListener((o, a, b) -> redraw());

    heatmap.setOnMouseMoved(e -> {
      int[] rc = heatmap.cellAt(e.getX(), e.getY());
      vm.pointAt(rc[0], rc[1]);
      heatmap.hover(rc[0], rc[1]);
    });
    heatmap.setOnMouseExited(e -> {
      vm.pointAt(-1, -1);
      heatmap.hover(-1, -1);
    });
    heatScroll.setOnScroll(e -> {
      if (e.isControlDown()) {
        zoom.setValue(zoom.getValue() * (e.getDeltaY() > 0 ? 1.15 : 1 / 1.15));
        e.consume();
      }
    });
    lines.setOnMouseMoved(e -> {
      int[] t = lines.tokenAt(e.getX(), e.getY());
      HeadMatrix m = vm.matrixProperty().get();
      if (t == null || m == null) {
        lines.highlight(-1, false);
        vm.pointAtToken(-1);
      } else {
        lines.highlight(t[0], t[1] == 1);
        vm.pointAtToken(t[1] == 0 ? m.rowOffset() + t[0] : -1);
        if (t[1] == 1) {
          vm.pointAt(-1, -1);
        }
      }
    });
    lines.setOnMouseExited(e -> lines.highlight(-1, false));
    hover.textProperty().bind(vm.hoverProperty().map(s -> s.isEmpty()
        ? "Point at a cell to read it · Ctrl+wheel zooms" : s));

    vm.matrixProperty().addListener((o, a, b) -> {
      if (b != null && (a == null || a.rows() != b.rows())) {
        fitted = false;
      }
      redraw();
    });
    heatScroll.viewportBoundsProperty().addListener((o, a, b) -> {
      if (!fitted) {
        redraw();
      }
    });
    redraw();
  }

  /** The Fit button: zooms so the whole map fits the visible area (cells may be under a pixel: zoom in to read). */
  @FXML
  public void fit() {
    fit(false);
  }

  /**
   * @param readable on a new input: rather than shrink the cells below the size at which token labels
   *     are drawn, keep that size when the map's width allows it and let the rows scroll (a 36-token
   *     pair reads better as a labelled map that scrolls a little than as an unlabelled thumbnail)
   */
  private void fit(boolean readable) {
    HeadMatrix m = vm.matrixProperty().get();
    double w = heatScroll.getViewportBounds().getWidth();
    double h = heatScroll.getViewportBounds().getHeight();
    if (m == null || w <= 0 || h <= 0) {
      return;
    }
    double byWidth = (w - HeatmapPane.LABEL - 6) / m.cols();
    double cell = Math.min(byWidth, (h - HeatmapPane.LABEL - 6) / m.rows());
    if (readable && cell < READABLE_CELL && byWidth >= READABLE_CELL) {
      cell = READABLE_CELL;
    }
    fitted = true;
    zoom.setValue(Math.max(0.5, Math.min(40, cell)));
    redraw();
  }

  private void redraw() {
    HeadMatrix m = vm.matrixProperty().get();
    if (!fitted && m != null && heatScroll.getViewportBounds().getWidth() > 0) {
      fit(true);
      return;
    }
    // a Canvas larger than about 8k pixels cannot be drawn: cap the zoom for long inputs
    double cap = m == null ? 40 : 7900.0 / Math.max(m.rows(), m.cols());
    heatmap.show(m, Math.min(zoom.getValue(), cap));
    lines.show(m);
    title.setText(m == null ? "No head selected" : "Head " + m.head() + "  (layer " + (m.head().layer() + 1)
        + ", head " + (m.head().head() + 1) + ")");
    drawScale(m);
  }

  private void drawScale(HeadMatrix m) {
    GraphicsContext g = scale.getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, scale.getWidth(), scale.getHeight());
    double max = m == null ? 1 : m.max();
    for (int x = 0; x < 120; x++) {
      g.setFill(FxColors.scale(x / 119.0 * max, max));
      g.fillRect(30 + x, 2, 1, 12);
    }
    g.setStroke(Color.gray(0.5));
    g.strokeRect(30, 2, 120, 12);
    g.setFill(Color.BLACK);
    g.setFont(javafx.scene.text.Font.font(10));
    g.fillText("0", 20, 12);
    g.fillText(String.format(Locale.ROOT, "%.2f", max), 153, 12);
  }

  /** The node a PNG export of the head view snapshots: the heatmap at its current zoom. */
  public Node heatmapNode() {
    return heatmap;
  }

  public Node linesNode() {
    return lines;
  }

  public boolean showingLines() {
    return tabs.getSelectionModel().getSelectedIndex() == 1;
  }
}
