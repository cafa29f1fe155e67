package io.headscope.app.gui.compare;

import io.headscope.analysis.compare.ComparisonResult;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.app.gui.screen.SourcePicker;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.gui.style.FxImages;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javafx.fxml.FXML;
import javafx.geometry.Point2D;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * The Compare screen: the layers x heads grid of mean cosine on the heatmap scale fixed at 0..1 (so a
 * colour means the same number in every run), its scale with numbers underneath, heads whose category
 * changed framed; the read-out under the pointer; a clicked head's two maps drawn as every heatmap is.
 */
public final class CompareView extends ScreenView<CompareViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("compare", "Models", "Compare",
      "Compare: the loaded model against a fine-tuned one, head by head (Kovaleva)",
      "Compare: the loaded model against a second checkpoint (e.g. fine-tuned), head by head",
      c -> new CompareView(new CompareViewModel(c.session(), c.repository()), c));

  @Override
  public List<ExportItem> exports() {
    return List.of(whenDone("export-compare", "Compare CSV…", this::exportCsv),
        whenDone("export-compare-figure", "Compare grid as figure (PNG 300 dpi or SVG)…", this::exportFigure));
  }

  private static final double LEFT = 34;
  private static final double TOP = 18;
  /** The scale under the grid: its bar and its numbers. */
  private static final double SCALE = 50;
  private double cell = 30;
  @FXML private ChoiceBox<CompareViewModel.SecondModel> secondChoice;
  @FXML private SourcePicker sources;
  @FXML private ScrollPane scroll;
  @FXML private VBox results;
  @FXML private Canvas canvas;
  @FXML private Label hover;
  @FXML private Label mapStatus;
  @FXML private Label secondHint;
  @FXML private HBox mapsBox;
  @FXML private Label titleA;
  @FXML private Label titleB;
  @FXML private Canvas imageA;
  @FXML private Canvas imageB;

  /** What the screen says while the loaded model is the only one it can offer as B. */
  static final String SECOND_HINT = "Only the model loaded now can be B here. A second one: Open folder… (a Hugging "
      + "Face folder, or a fine-tune written by ./headscope finetune --out DIR); Model › Hugging Face Hub… (downloaded "
      + "once, then listed here offline); or start with HEADSCOPE_MODELS=all for bert-base-cased and "
      + "bert-base-multilingual-cased (Model menu: how to get it).";

  public CompareView(CompareViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    // the models the Model menu offers, then folders opened here
    for (String name : context.loadable()) {
      secondChoice.getItems().add(new CompareViewModel.SecondModel(name, name));
    }
    secondChoice.valueProperty().bindBidirectional(vm.secondProperty());
    // at first launch only the loaded model is here: say where a second one comes from
    secondHint.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(() -> {
      var model = context.session().model();
      boolean onlyItself = secondChoice.getItems().stream()
          .allMatch(c -> model != null && c.spec().equals(model.name()));
      // and what B must be: a checkpoint of A's shape (two folders of one shape compare: A from the Model menu)
      return onlyItself ? SECOND_HINT + (model == null ? "" : " B must have " + model.name() + "'s shape: "
          + model.config().numHiddenLayers() + " layers × " + model.config().numAttentionHeads() + " heads; A is "
          + "the model loaded now (Model › Open folder… for a checkpoint of your own).") : "";
    }, secondChoice.getItems(), context.session().modelProperty()));
    secondHint.managedProperty().bind(secondHint.textProperty().isNotEmpty());
    sources.bind(context, vm.sourceProperty(), List.of(CompareViewModel.CURRENT_INPUT));
    bindRun(vm::run, vm.secondProperty().isNull());
    mapStatus.textProperty().bind(vm.mapStatusProperty());
    results.visibleProperty().bind(vm.resultProperty().isNotNull());
    mapsBox.visibleProperty().bind(vm.mapsProperty().isNotNull());
    vm.resultProperty().addListener((o, a, b) -> redraw());
    vm.mapsProperty().addListener((o, a, b) -> showMaps(b));
    canvas.setOnMouseMoved(e -> {
      Head h = headAt(e.getX(), e.getY());
      hover.setText(h == null ? " " : vm.describe(h));
    });
    canvas.setOnMouseClicked(e -> {
      Head h = headAt(e.getX(), e.getY());
      if (h != null) {
        vm.select(h);
      }
    });
    scroll.viewportBoundsProperty().addListener((o, a, b) -> {
      if (vm.heads() > 0) {
        cell = Math.max(16, Math.min(36, (b.getWidth() - LEFT - 10) / vm.heads()));
      }
      redraw();
    });
  }

  @FXML
  private void openModel() {
    Path p = context.dialogs().openFolder("Model B: a Hugging Face folder of the same family and shape as the loaded model");
    if (p != null) {
      CompareViewModel.SecondModel m = new CompareViewModel.SecondModel(
          p.getFileName() == null ? p.toString() : p.getFileName().toString(), p.toString());
      secondChoice.getItems().add(m);
      vm.secondProperty().set(m);
    }
  }

  /** Asks for a file and writes {@code compare.csv} (the bytes of {@code headscope compare}). */
  @FXML
  public void exportCsv() {
    context.dialogs().export("compare CSV", "csv", "compare.csv", vm.resultProperty()::get, CompareViewModel::writeCsv);
  }

  /** The grid as a figure (PNG at 300 dpi or SVG), through the one figure renderer. */
  @FXML
  public void exportFigure() {
    context.dialogs().exportFigure("compare", vm::figure);
  }

  private Head headAt(double x, double y) {
    if (vm.layers() == 0 || x < LEFT || y < TOP) {
      return null;
    }
    int l = (int) ((y - TOP) / cell);
    int h = (int) ((x - LEFT) / cell);
    return l < vm.layers() && h < vm.heads() ? new Head(l, h) : null;
  }

  /** For tests: a point inside head h's cell, off its number, in the canvas. */
  public Point2D cellInCanvas(Head h) {
    return new Point2D(LEFT + h.head() * cell + 4, TOP + h.layer() * cell + 4);
  }

  /** For tests: {@link #cellInCanvas} on the screen. */
  public Point2D cellOnScreen(Head h) {
    return canvas.localToScreen(cellInCanvas(h));
  }

  /** For tests: the grid. */
  public Canvas canvas() {
    return canvas;
  }

  /** For tests: the colour drawn for a cosine. */
  public static Color colour(double cosine) {
    return FxColors.scale(cosine, 1);
  }

  private void redraw() {
    GraphicsContext g = canvas.getGraphicsContext2D();
    ComparisonResult r = vm.resultProperty().get();
    if (r == null) {
      canvas.setWidth(10);
      canvas.setHeight(10);
      g.clearRect(0, 0, 10, 10);
      return;
    }
    int layers = r.layers();
    int heads = r.heads();
    double gridBottom = TOP + layers * cell;
    canvas.setWidth(Math.max(LEFT + heads * cell + 6, 260));
    canvas.setHeight(gridBottom + SCALE);
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, canvas.getWidth(), canvas.getHeight());
    g.setTextAlign(TextAlignment.CENTER);
    g.setTextBaseline(VPos.CENTER);
    g.setFont(Font.font(Math.min(10, cell * 0.34)));
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        Head head = new Head(l, h);
        double v = r.head(head).cosine();
        double x = LEFT + h * cell;
        double y = TOP + l * cell;
        g.setFill(colour(v));
        g.fillRect(x, y, cell - 1, cell - 1);
        if (r.head(head).categoryChanged()) {
          g.setStroke(FxColors.of(io.headscope.app.render.UiColor.PICKED));
          g.setLineWidth(2);
          g.strokeRect(x + 1, y + 1, cell - 3, cell - 3);
        }
        if (cell >= 24) {
          g.setFill(v > 0.6 ? Color.WHITE : Color.BLACK);
          g.fillText(String.format(Locale.ROOT, "%.2f", v), x + cell / 2, y + cell / 2);
        }
      }
    }
    g.setFill(Color.BLACK);
    g.setFont(Font.font(10));
    g.setTextAlign(TextAlignment.RIGHT);
    for (int l = 0; l < layers; l++) {
      g.fillText("L" + (l + 1), LEFT - 5, TOP + (l + 0.5) * cell);
    }
    g.setTextAlign(TextAlignment.CENTER);
    for (int h = 0; h < heads; h++) {
      g.fillText(String.valueOf(h + 1), LEFT + (h + 0.5) * cell, TOP / 2);
    }
    drawScale(g, LEFT, gridBottom + 8, Math.min(240, canvas.getWidth() - LEFT - 10));
  }

  /** The colour scale 0..1 with its numbers. */
  private static void drawScale(GraphicsContext g, double x, double y, double width) {
    for (int i = 0; i < width; i++) {
      g.setFill(colour(i / (width - 1)));
      g.fillRect(x + i, y, 1.5, 10);
    }
    g.setStroke(Color.GRAY);
    g.setLineWidth(0.5);
    g.strokeRect(x, y, width, 10);
    g.setFill(Color.BLACK);
    g.setFont(Font.font(10));
    g.setTextAlign(TextAlignment.CENTER);
    for (int k = 0; k <= 4; k++) {
      g.fillText(String.format(Locale.ROOT, "%.2f", k / 4.0), x + k * width / 4, y + 20);
    }
    g.setTextAlign(TextAlignment.LEFT);
    g.fillText("cosine similarity (1: the same maps)", x, y + 34);
  }

  private void showMaps(CompareViewModel.HeadMaps m) {
    if (m == null) {
      draw(imageA, null, 10);
      draw(imageB, null, 10);
      return;
    }
    ComparisonResult r = vm.resultProperty().get();
    String name = "L" + (m.head().layer() + 1) + " H" + (m.head().head() + 1);
    titleA.setText("A " + (r == null ? "" : r.modelA()) + " · " + name);
    titleB.setText("B " + (r == null ? "" : r.modelB()) + " · " + name);
    // one scale for both, so equal colours are equal weights
    double max = Math.max(FxImages.max(m.a()), FxImages.max(m.b()));
    double side = Math.max(120, Math.min(220, (scroll.getViewportBounds().getWidth() - 24) / 2));
    draw(imageA, FxImages.heatmap(m.a(), max, false), side);
    draw(imageB, FxImages.heatmap(m.b(), max, false), side);
  }

  /** The heatmap's one pixel per cell scaled up without smoothing, as the head view draws it. */
  private static void draw(Canvas c, WritableImage image, double side) {
    c.setWidth(side);
    c.setHeight(side);
    GraphicsContext g = c.getGraphicsContext2D();
    g.clearRect(0, 0, side, side);
    if (image != null) {
      g.setImageSmoothing(false);
      g.drawImage(image, 0, 0, side, side);
    }
  }

  /** For tests: the width of the two maps drawn (0 before a click). */
  public double[] mapWidths() {
    return new double[] {imageA.getWidth(), imageB.getWidth()};
  }
}
