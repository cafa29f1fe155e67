package io.headscope.app.gui.head;

import io.headscope.app.gui.chart.HeatmapPane;
import io.headscope.app.gui.fxml.ViewLoader;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.HeadMatrix.Display;
import io.headscope.app.render.HeadMatrix.PairFilter;
import java.util.Locale;
import javafx.fxml.FXML;
import javafx.geometry.Bounds;
import javafx.geometry.Rectangle2D;
import javafx.scene.Node;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Slider;
import javafx.scene.control.TabPane;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;

/** The selected head, large: heatmap with token axes and a colour scale, or BertViz-style lines. */
public final class HeadView extends VBox {
  private final HeadViewModel vm;
  @FXML private HeatmapPane heatmap;
  @FXML private LinesPane lines;
  @FXML private NeuronPane neuron;
  @FXML private ScrollPane neuronScroll;
  @FXML private Label neuronNote;
  @FXML private Canvas scale;
  @FXML private Slider zoom;
  @FXML private Label title;
  @FXML private Label hover;
  @FXML private Label stripNote;
  @FXML private ScrollPane heatScroll;
  @FXML private TabPane tabs;
  @FXML private ChoiceBox<Display> displayChoice;
  @FXML private ChoiceBox<PairFilter> filterChoice;
  @FXML private ScrollPane linesScroll;
  @FXML private CheckBox wholeLayer;
  @FXML private Label linesNote;
  @FXML private javafx.scene.layout.FlowPane linesLegend;
  /** Heads of the overlaid layer whose lines the legend hides (by head index; cleared for another layer). */
  private final java.util.Set<Integer> hiddenInOverlay = new java.util.HashSet<>();
  private int overlayLayer = -1;
  @FXML private javafx.scene.layout.HBox unitsToggle;
  private boolean fitted;
  /** Set while Fit moves the slider, so the slider's listener does not square the cells again. */
  private boolean fitting;
  private double cellWidth = 16;
  private double cellHeight = 16;
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
    title.textProperty().bind(vm.titleProperty());
    bindUnitsToggle();
    // an encoder-decoder's runs give the weights over its tokens: the other quantities and words are off
    displayChoice.disableProperty().bind(vm.encoderDecoderProperty());
    unitsToggle.disableProperty().bind(vm.encoderDecoderProperty());
    // the slider makes square cells; Fit may stretch them to fill the pane (see fit)
    zoom.valueProperty().addListener((o, a, b) -> {
      if (!fitting) {
        cellWidth = b.doubleValue();
        cellHeight = b.doubleValue();
        redraw();
      }
    });

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
    // only the part in view is drawn: follow the scroll position and the viewport's size
    heatScroll.hvalueProperty().addListener((o, a, b) -> 
        heatmap.setVisibleArea(HeatmapPane.visibleArea(heatScroll, heatmap)));
    heatScroll.vvalueProperty().addListener((o, a, b) -> 
        heatmap.setVisibleArea(HeatmapPane.visibleArea(heatScroll, heatmap)));
    linesScroll.vvalueProperty().addListener((o, a, b) -> 
        lines.setVisibleArea(HeatmapPane.visibleArea(linesScroll, lines)));
    linesScroll.viewportBoundsProperty().addListener((o, a, b) -> 
        lines.setVisibleArea(HeatmapPane.visibleArea(linesScroll, lines)));
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
    // the line drawing is made only while its tab is selected
    tabs.getSelectionModel().selectedIndexProperty().addListener((o, a, b) -> lines.setShown(b.intValue() == 1));
    bindNeuron();
    wholeLayer.selectedProperty().addListener((o, a, b) -> showLines());
    hover.textProperty().bind(vm.hoverProperty().map(s -> s.isEmpty()
        ? "Point at a cell to read it · Ctrl+wheel zooms" : s));

    // the session's token saliency as a strip over the key tokens, while it belongs to this input
    vm.stripProperty().addListener((o, a, b) -> heatmap.setColumnStrip(b == null ? null : b.values(),
        b == null ? 1 : b.max()));
    if (vm.stripProperty().get() != null) {
      heatmap.setColumnStrip(vm.stripProperty().get().values(), vm.stripProperty().get().max());
    }
    stripNote.textProperty().bind(vm.stripNoteProperty());
    stripNote.visibleProperty().bind(vm.stripNoteProperty().isNotEmpty());
    stripNote.managedProperty().bind(stripNote.visibleProperty());
    vm.matrixProperty().addListener((o, a, b) -> {
      if (b != null && (a == null || a.rows() != b.rows() || a.cols() != b.cols())) {
        fitted = false;
      }
      redraw();
      showLines();
    });
    heatScroll.viewportBoundsProperty().addListener((o, a, b) -> {
      if (!fitted) {
        redraw();
      } else {
        heatmap.setVisibleArea(HeatmapPane.visibleArea(heatScroll, heatmap));
      }
    });
    redraw();
  }

  /**
   * Wordpieces | words: whether the head view and the grid (and the JSON export) show word-level maps.
   * It sits with the head view's display controls; the choice is the session's, so the grid follows.
   */
  private void bindUnitsToggle() {
    javafx.scene.control.ToggleGroup group = new javafx.scene.control.ToggleGroup();
    javafx.scene.control.ToggleButton pieces = new javafx.scene.control.ToggleButton("wordpieces");
    javafx.scene.control.ToggleButton words = new javafx.scene.control.ToggleButton("words");
    pieces.setId("units-wordpieces");
    words.setId("units-words");
    pieces.setTooltip(new javafx.scene.control.Tooltip("The maps as the model computes them, one row and column per wordpiece."));
    words.setTooltip(new javafx.scene.control.Tooltip("Word-level maps (Clark et al. 2019), here and in the grid: "
        + "attention to a word is the sum over its wordpieces, from a word the mean over them; ## pieces join "
        + "the word before them; [CLS] and [SEP] stay words. Rows still sum to 1."));
    for (javafx.scene.control.ToggleButton b : java.util.List.of(pieces, words)) {
      b.setToggleGroup(group);
      b.setFocusTraversable(false);
      b.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
      unitsToggle.getChildren().add(b);
    }
    (vm.wordsProperty().get() ? words : pieces).setSelected(true);
    group.selectedToggleProperty().addListener((o, a, b) -> {
      if (b == null) {
        a.setSelected(true); // one of the two is always chosen
      } else {
        vm.wordsProperty().set(b == words);
      }
    });
    vm.wordsProperty().addListener((o, a, b) -> (b ? words : pieces).setSelected(true));
  }

  /** The Fit button: the whole map fills the visible area, each axis on its own (cells may be under a pixel). */
  @FXML
  public void fit() {
    fit(false);
  }

  /**
   * Fits both axes to the pane. {@code readable} (on a new input): rather than shrink the cells below
   * the size at which token labels are drawn, keep that size when the map's width allows it and let
   * the rows scroll (a 36-token pair reads better as a labelled map that scrolls a little than as an
   * unlabelled thumbnail).
   */
  private void fit(boolean readable) {
    HeadMatrix m = vm.matrixProperty().get();
    double w = heatScroll.getViewportBounds().getWidth();
    double h = heatScroll.getViewportBounds().getHeight();
    if (m == null || w <= 0 || h <= 0) {
      return;
    }
    double byWidth = (w - HeatmapPane.LABEL - 6) / m.cols();
    double byHeight = (h - HeatmapPane.LABEL - 6) / m.rows();
    if (HeatmapPane.margin(byWidth, byHeight) != HeatmapPane.LABEL) {
      // too small for labels: the label strips shrink, and the cells take the room
      byWidth = (w - HeatmapPane.SMALL_LABEL - 6) / m.cols();
      byHeight = (h - HeatmapPane.SMALL_LABEL - 6) / m.rows();
    }
    if (readable && byHeight < READABLE_CELL && byWidth >= READABLE_CELL) {
      byHeight = READABLE_CELL;
    }
    // cells no more than twice as wide as tall: a short sentence in a wide pane stays a map, not a bar chart
    byWidth = Math.min(byWidth, 2 * Math.max(byHeight, 0.5));
    byHeight = Math.min(byHeight, 2 * Math.max(byWidth, 0.5));
    fitted = true;
    cellWidth = clamp(byWidth);
    cellHeight = clamp(byHeight);
    fitting = true;
    zoom.setValue(cellHeight);
    fitting = false;
    redraw();
  }

  private static double clamp(double cell) {
    return Math.max(0.25, Math.min(40, cell));
  }

  private void redraw() {
    HeadMatrix m = vm.matrixProperty().get();
    if (!fitted && m != null && heatScroll.getViewportBounds().getWidth() > 0) {
      fit(true);
      return;
    }
    heatmap.setCausal(vm.causal());
    heatmap.show(m, cellWidth, cellHeight, m != null && m.signed());
    heatmap.setVisibleArea(HeatmapPane.visibleArea(heatScroll, heatmap));
    drawScale(m);
  }

  /** The neuron view's tab: drawn from its view model, a click on a token makes it the query. */
  private void bindNeuron() {
    NeuronViewModel nv = vm.neuron();
    if (nv == null) {
      tabs.getTabs().removeIf(t -> "tab-neuron".equals(t.getId()));
      return;
    }
    nv.shownProperty().bind(tabs.getSelectionModel().selectedIndexProperty().isEqualTo(2));
    neuronNote.textProperty().bind(nv.noteProperty());
    neuron.onQuery(nv.queryProperty()::set);
    Runnable draw = () -> {
      double w = neuronScroll.getViewportBounds().getWidth();
      neuron.show(nv.viewProperty().get(), w > 0 ? w - 4 : 560);
    };
    nv.viewProperty().addListener((o, a, b) -> draw.run());
    neuronScroll.viewportBoundsProperty().addListener((o, a, b) -> draw.run());
  }

  private void showLines() {
    HeadMatrix m = vm.matrixProperty().get();
    boolean overlay = m != null && wholeLayer.isSelected();
    java.util.List<HeadMatrix> layer = overlay ? vm.layerMatrices() : java.util.List.of();
    if (overlay && m.head().layer() != overlayLayer) {
      overlayLayer = m.head().layer();
      hiddenInOverlay.clear();
    }
    lines.show(m == null ? java.util.List.of() : overlay
        ? layer.stream().filter(x -> !hiddenInOverlay.contains(x.head().head())).toList() : java.util.List.of(m), overlay);
    lines.setVisibleArea(HeatmapPane.visibleArea(linesScroll, lines));
    linesNote.setText(lines.describe());
    showLinesLegend(layer);
  }

  /** One swatch per head of the overlaid layer in its line colour; a click hides or shows that head's lines. */
  private void showLinesLegend(java.util.List<HeadMatrix> layer) {
    linesLegend.getChildren().clear();
    linesLegend.setVisible(!layer.isEmpty());
    linesLegend.setManaged(!layer.isEmpty());
    for (HeadMatrix x : layer) {
      int h = x.head().head();
      javafx.scene.control.ToggleButton b = new javafx.scene.control.ToggleButton(x.head().toString());
      b.setId("lines-legend-" + x.head());
      b.getStyleClass().add("legend-item");
      b.setFocusTraversable(false);
      b.setGraphic(new javafx.scene.shape.Rectangle(10, 10,
          io.headscope.app.gui.style.FxColors.rgb(io.headscope.app.render.LineSelection.headColor(h), 1)));
      b.setSelected(!hiddenInOverlay.contains(h));
      b.pseudoClassStateChanged(io.headscope.app.gui.style.States.FADED, hiddenInOverlay.contains(h));
      b.setTooltip(new javafx.scene.control.Tooltip("Head " + x.head() + "'s lines are drawn in this colour: click to "
          + (hiddenInOverlay.contains(h) ? "show" : "hide") + " them"));
      b.setOnAction(e -> {
        if (!hiddenInOverlay.remove(h)) {
          hiddenInOverlay.add(h);
        }
        showLines();
      });
      linesLegend.getChildren().add(b);
    }
  }

  private void drawScale(HeadMatrix m) {
    GraphicsContext g = scale.getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, scale.getWidth(), scale.getHeight());
    double max = m == null ? 1 : m.max();
    boolean signed = m != null && m.signed();
    for (int x = 0; x < 120; x++) {
      g.setFill(signed ? FxColors.diverging((x / 119.0 * 2 - 1) * max, max) : FxColors.scale(x / 119.0 * max, max));
      g.fillRect(38 + x, 2, 1, 12);
    }
    g.setStroke(Color.gray(0.5));
    g.strokeRect(38, 2, 120, 12);
    g.setFill(Color.BLACK);
    g.setFont(javafx.scene.text.Font.font(10));
    g.setTextAlign(javafx.scene.text.TextAlignment.RIGHT);
    g.fillText(signed ? String.format(Locale.ROOT, "%+.2f", -max) : "0", 35, 12);
    g.setTextAlign(javafx.scene.text.TextAlignment.LEFT);
    g.fillText(String.format(Locale.ROOT, signed ? "%+.2f" : "%.2f", max), 161, 12);
  }

  /** The node a PNG export of the head view snapshots: the heatmap at its current zoom. */
  public Node heatmapNode() {
    return heatmap;
  }

  public Node linesNode() {
    return lines;
  }

  /** Fades the drawn map and lines (a result shown while a newer input runs), or brings them back with 1. */
  public void setFaded(double opacity) {
    heatmap.getChildrenUnmodifiable().forEach(n -> n.setOpacity(opacity));
    lines.getChildrenUnmodifiable().forEach(n -> n.setOpacity(opacity));
  }

  /** Whether the line drawing overlays the whole layer. */
  public boolean wholeLayerShown() {
    return wholeLayer.isSelected();
  }

  public boolean showingLines() {
    return tabs.getSelectionModel().getSelectedIndex() == 1;
  }
}
