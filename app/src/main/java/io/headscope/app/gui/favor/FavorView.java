package io.headscope.app.gui.favor;

import io.headscope.analysis.favor.RandomFeatures;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.gui.style.FxImages;
import io.headscope.app.render.UiColor;
import io.headscope.model.core.Head;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.fxml.FXML;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.Slider;
import javafx.scene.control.ToggleButton;
import javafx.scene.image.Image;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;
import javafx.util.StringConverter;

/**
 * Linear attention: the layers x heads grid of FAVOR+ map errors at the chosen m, and for the clicked
 * head its exact map, its FAVOR+ map and their difference (one pixel per cell, unsmoothed, as every
 * heatmap here) with its error-versus-m curve for ORF and iid features.
 */
public final class FavorView extends ScreenView<FavorViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("favor", "Models", "FAVOR+",
      "Linear attention: which heads FAVOR+ approximates (Performer)",
      "Linear attention: which heads Performer's FAVOR+ could replace",
      c -> new FavorView(new FavorViewModel(c.session()), c));

  @Override
  public List<ExportItem> exports() {
    return List.of(whenDone("export-favor", "FAVOR+ map errors CSV (linear attention)…", this::exportCsv),
        whenDone("export-favor-figure", "FAVOR+ map errors as figure (PNG 300 dpi or SVG)…",
            () -> context.dialogs().exportFigure("favor", vm::figure)));
  }

  private static final double LEFT = 30;
  private static final double TOP = 18;
  private static final double CELL = 24;
  @FXML private Button exportButton;
  @FXML private Slider featureSlider;
  @FXML private ChoiceBox<RandomFeatures.Kind> kindChoice;
  @FXML private Canvas canvas;
  @FXML private Label hover;
  @FXML private Label headLabel;
  @FXML private Label favorTitle;
  @FXML private Label mapsNote;
  @FXML private Canvas exactMap;
  @FXML private Canvas favorMap;
  @FXML private Canvas diffMap;
  @FXML private Label curveTitle;
  @FXML private LineChart<String, Number> curve;
  @FXML private ToggleButton predictionsToggle;
  @FXML private ChoiceBox<FavorViewModel.Scope> scopeChoice;
  @FXML private Label predictionsLabel;

  public FavorView(FavorViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    runBar.bind(vm, vm::run, new SimpleBooleanProperty(false), statusLabel);
    exportButton.disableProperty().bind(vm.resultProperty().isNull().or(vm.runningProperty()));
    featureSlider.setMax(FavorViewModel.FEATURES.length - 1);
    featureSlider.setLabelFormatter(new StringConverter<>() {
      @Override
      public String toString(Double i) {
        return String.valueOf(FavorViewModel.FEATURES[(int) Math.round(i)]);
      }

      @Override
      public Double fromString(String s) {
        return 0.0;
      }
    });
    featureSlider.setValue(vm.featureIndexProperty().get());
    // the slider snaps on release; the view model hears only whole indices
    featureSlider.valueProperty().addListener((o, a, b) -> vm.featureIndexProperty().set((int) Math.round(b.doubleValue())));
    vm.featureIndexProperty().addListener((o, a, b) -> featureSlider.setValue(b.intValue()));
    kindChoice.getItems().setAll(RandomFeatures.Kind.values());
    kindChoice.setConverter(new StringConverter<>() {
      @Override
      public String toString(RandomFeatures.Kind k) {
        return k == null ? "" : k.title();
      }

      @Override
      public RandomFeatures.Kind fromString(String s) {
        return null;
      }
    });
    kindChoice.valueProperty().bindBidirectional(vm.kindProperty());
    canvas.setOnMouseMoved(e -> {
      int[] lh = cellAt(e.getX(), e.getY());
      hover.setText(lh == null ? " " : vm.describe(lh[0], lh[1]));
    });
    canvas.setOnMouseClicked(e -> {
      int[] lh = cellAt(e.getX(), e.getY());
      if (lh != null && e.isShortcutDown()) {
        vm.togglePicked(lh[0], lh[1]);
      } else if (lh != null) {
        vm.select(lh[0], lh[1]);
      }
    });
    scopeChoice.getItems().setAll(FavorViewModel.Scope.values());
    scopeChoice.setConverter(new StringConverter<>() {
      @Override
      public String toString(FavorViewModel.Scope s) {
        return s == null ? "" : s.label();
      }

      @Override
      public FavorViewModel.Scope fromString(String s) {
        return null;
      }
    });
    scopeChoice.valueProperty().bindBidirectional(vm.scopeProperty());
    predictionsToggle.selectedProperty().bindBidirectional(vm.predictionsOnFavorProperty());
    vm.favorInUseProperty().addListener((o, a, b) -> {
      redraw();
      describePredictions();
    });
    vm.scopeProperty().addListener((o, a, b) -> describePredictions());
    describePredictions();
    vm.resultProperty().addListener((o, a, b) -> redraw());
    vm.featureIndexProperty().addListener((o, a, b) -> redraw());
    vm.kindProperty().addListener((o, a, b) -> redraw());
    vm.modelProperty().addListener((o, a, b) -> redraw());
    vm.mapsProperty().addListener((o, a, b) -> showHead());
    redraw();
  }

  /** What the toggle does now, in one line under it. */
  private void describePredictions() {
    var f = vm.favorInUseProperty().get();
    predictionsLabel.setText(f.isEmpty()
        ? "Off: every head exact. On: the main window's sentence runs with "
            + (vm.scopeProperty().get() == FavorViewModel.Scope.ALL ? "" : "the ") + vm.scopeProperty().get().label()
            + " on FAVOR+ at the chosen m; the Predictions panel shows the change, as switching heads off does."
        : "On: " + f.describe() + (f.heads().size() > 6 ? "" : " (" + heads(f.heads()) + ")")
            + "; marked ● in the grid. The Predictions panel shows the change.");
  }

  private static String heads(java.util.Set<Head> heads) {
    return String.join(", ", heads.stream().map(Head::toString).toList());
  }

  private int[] size() {
    FavorViewModel.Computed c = vm.resultProperty().get();
    return c == null ? null : new int[] {c.input().layers(), c.input().heads()};
  }

  /** The grid's shape: the result's, else the loaded model's (not bert-base's 12 x 12 for every model). */
  private int[] gridShape() {
    int[] size = size();
    return size != null ? size : vm.modelShape();
  }

  /** {layer, head} under a point; null outside the grid. */
  private int[] cellAt(double x, double y) {
    int[] size = size();
    if (size == null || x < LEFT || y < TOP) {
      return null;
    }
    int l = (int) ((y - TOP) / CELL);
    int h = (int) ((x - LEFT) / CELL);
    return l < size[0] && h < size[1] ? new int[] {l, h} : null;
  }

  /** Errors on one fixed 0..1 scale, so moving m shows the errors fall instead of rescaling them. */
  private void redraw() {
    int[] size = size();
    int[] shape = gridShape();
    GraphicsContext g = canvas.getGraphicsContext2D();
    g.clearRect(0, 0, canvas.getWidth(), canvas.getHeight());
    int layers = shape == null ? 12 : shape[0];
    int heads = shape == null ? 12 : shape[1];
    canvas.setWidth(LEFT + heads * CELL + 4);
    canvas.setHeight(TOP + layers * CELL + 4);
    g.setFont(Font.font(9));
    g.setTextAlign(TextAlignment.CENTER);
    g.setTextBaseline(VPos.CENTER);
    Head sel = vm.selectedProperty().get();
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        double v = size == null ? Double.NaN : vm.value(l, h);
        double x = LEFT + h * CELL;
        double y = TOP + l * CELL;
        g.setFill(Double.isNaN(v) ? Color.gray(0.93) : FxColors.scale(v, 1.0));
        g.fillRect(x, y, CELL - 1, CELL - 1);
        if (!Double.isNaN(v)) {
          g.setFill(v > 0.6 ? Color.WHITE : Color.BLACK);
          g.fillText(String.format(Locale.ROOT, "%.2f", v).substring(1), x + CELL / 2, y + CELL / 2);
        }
        if (vm.onFavor(l, h)) {
          // a head the main window runs on FAVOR+: a dot in the corner (the grid's colours stay readable)
          g.setFill(Color.WHITE);
          g.fillOval(x + CELL - 10, y + 1, 8, 8);
          g.setFill(FxColors.of(UiColor.FAVOR));
          g.fillOval(x + CELL - 9, y + 2, 6, 6);
        }
        if (sel != null && sel.layer() == l && sel.head() == h && size != null) {
          g.setStroke(Color.ORANGE);
          g.setLineWidth(2);
          g.strokeRect(x + 1, y + 1, CELL - 3, CELL - 3);
        }
      }
    }
    g.setFill(Color.BLACK);
    for (int l = 0; l < layers; l++) {
      g.fillText("L" + (l + 1), LEFT / 2, TOP + (l + 0.5) * CELL);
    }
    for (int h = 0; h < heads; h++) {
      g.fillText("h" + (h + 1), LEFT + (h + 0.5) * CELL, TOP / 2);
    }
  }

  private void showHead() {
    redraw();
    FavorViewModel.HeadMaps m = vm.mapsProperty().get();
    curve.getData().clear();
    if (m == null) {
      paint(exactMap, null);
      paint(favorMap, null);
      paint(diffMap, null);
      headLabel.setText("Compute, then click a head.");
      mapsNote.setText("");
      return;
    }
    // exact and FAVOR+ on one scale so they compare; the difference on its own diverging scale
    double max = Math.max(FxImages.max(m.exact()), FxImages.max(m.favor()));
    double diff = Math.max(1e-9, Math.max(FxImages.max(m.difference()), -min(m.difference())));
    paint(exactMap, FxImages.heatmap(m.exact(), max, false));
    paint(favorMap, FxImages.heatmap(m.favor(), max, false));
    paint(diffMap, FxImages.heatmap(m.difference(), diff, false, true));
    curveTitle.setText("Head " + m.head() + ": map error against m");
    headLabel.setText("Head " + m.head() + String.format(Locale.ROOT, ": map error %.3f at m = %d (mean of %d draws %.3f)",
        m.error(), m.m(), FavorViewModel.DRAWS, vm.value(m.head().layer(), m.head().head())));
    favorTitle.setText("FAVOR+ (m = " + m.m() + ", " + m.kind().title() + ", draw 1)");
    mapsNote.setText(String.format(Locale.ROOT, "%d tokens; queries ↓, keys →. Maps share the scale 0…%.2f; the "
        + "difference runs red (FAVOR+ too low) … blue (too high), ±%.2f.", m.exact().length, max, diff));
    double[][] c = vm.curve(m.head().layer(), m.head().head());
    for (int k = 0; k < c.length; k++) {
      XYChart.Series<String, Number> s = new XYChart.Series<>();
      s.setName(k == 0 ? "orthogonal (ORF)" : "iid");
      for (int i = 0; i < c[k].length; i++) {
        s.getData().add(new XYChart.Data<>(String.valueOf(FavorViewModel.FEATURES[i]), c[k][i]));
      }
      curve.getData().add(s);
    }
  }

  /**
   * One pixel per cell scaled up without smoothing (an ImageView's smooth=false is not honoured by
   * every pipeline); the image is kept in the canvas's properties so tests can read its size.
   */
  private static void paint(Canvas c, Image img) {
    GraphicsContext g = c.getGraphicsContext2D();
    g.clearRect(0, 0, c.getWidth(), c.getHeight());
    c.getProperties().put("headscope.image", img);
    if (img != null) {
      g.setImageSmoothing(false);
      g.drawImage(img, 0, 0, c.getWidth(), c.getHeight());
    }
  }

  private static double min(float[][] m) {
    double v = 0;
    for (float[] r : m) {
      for (float x : r) {
        v = Math.min(v, x);
      }
    }
    return v;
  }

  /** The screen point at the centre of a head's cell (for UI tests and tours). */
  public javafx.geometry.Point2D cellOnScreen(int layer, int head) {
    return canvas.localToScreen(LEFT + (head + 0.5) * CELL, TOP + (layer + 0.5) * CELL);
  }

  /** Asks for a file and writes the CSV with the bytes of the command line. */
  @FXML
  public void exportCsv() {
    context.dialogs().export("FAVOR+ CSV", "csv", "favor.csv", vm::csv, FavorViewModel::writeCsv);
  }

  /** The Analysis menu entry starts the run at once, as it always did. */
  @Override
  public void onMenu() {
    vm.run();
  }
}
