package io.headscope.app.gui.headmap;

import io.headscope.analysis.distance.HeadMap;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.app.gui.screen.SourcePicker;
import io.headscope.app.gui.style.CategorySwatch;
import io.headscope.app.render.figure.HeadMapFigure;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import java.util.List;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/**
 * The head map screen: choose the current input or a corpus, Draw (progress, Cancel), then every head
 * as a point placed by how alike it attends to the others, a colour key, and the exports (the figure
 * and the distances CSV).
 */
public final class HeadMapView extends ScreenView<HeadMapViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("head-map", "Heads", "Head map",
      "Head map: which heads attend alike (Clark et al.)", "Head map: which heads attend alike (Jensen-Shannon, MDS)",
      c -> new HeadMapView(new HeadMapViewModel(c.session(), c.scores()), c));

  @Override
  public List<ExportItem> exports() {
    return List.of(whenDone("export-head-distances", "Head distances CSV (head map)…", this::exportCsv),
        whenDone("export-head-map-figure", "Head map as figure (PNG 300 dpi or SVG)…", this::exportFigure));
  }

  @FXML private SourcePicker sources;
  @FXML private ScrollPane scroll;
  @FXML private VBox results;
  @FXML private HBox colourKey;
  @FXML private HeadMapCanvas canvas;
  @FXML private Label hover;
  /** The key for grey dots (uncertain heads, or every head of a causal model); hidden when none is grey. */
  private final Label grey = CategorySwatch.unknown("");

  public HeadMapView(HeadMapViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    canvas.onHead(vm::select, h -> hover.setText(vm.describe(h)));
    sources.bind(context, vm.sourceProperty(), List.of(HeadMapViewModel.CURRENT_INPUT));
    bindRun(vm::draw);
    for (HeadPattern p : HeadPattern.values()) {
      colourKey.getChildren().add(CategorySwatch.labelled(p.label(), p));
    }
    grey.setId("head-map-grey-key");
    grey.managedProperty().bind(grey.visibleProperty());
    grey.setVisible(false);
    colourKey.getChildren().add(grey);
    results.visibleProperty().bind(vm.resultProperty().isNotNull());
    vm.resultProperty().addListener((o, a, b) -> refresh());
    vm.scores().addListener((ListChangeListener<Object>) c -> refresh());
    vm.selectedProperty().addListener((o, a, b) -> canvas.select(b));
    scroll.viewportBoundsProperty().addListener((o, a, b) -> refresh());
  }

  /** The map as a figure (PNG at 300 dpi or SVG), through the one figure renderer. */
  @FXML
  public void exportFigure() {
    context.dialogs().exportFigure("head-map", () -> {
      HeadMap m = vm.resultProperty().get();
      if (m == null) {
        throw new HeadScopeException("Draw the map first.");
      }
      String[] text = context.session().inputText();
      String a = text[0];
      String b = text[1];
      return HeadMapFigure.of(m, vm::category, b == null || b.isBlank() ? a : a + " ‖ " + b);
    });
  }

  /** Asks for a file and writes the distances CSV (the CLI's {@code head-distances} file). */
  @FXML
  public void exportCsv() {
    context.dialogs().export("head distances CSV", "csv", "distances.csv", vm.resultProperty()::get,
        HeadMapViewModel::writeCsv);
  }

  private void refresh() {
    double w = scroll.getViewportBounds().getWidth();
    double h = scroll.getViewportBounds().getHeight();
    // square, as large as the pane allows with the heading, the key, the read-out and the export
    // buttons (about 110 px) still in view
    double size = Math.max(240, Math.min(w - 8, h - 110));
    canvas.show(vm.resultProperty().get(), vm::category, vm.selectedProperty().get(), size);
    String key = vm.greyKey();
    grey.setText(key == null ? "" : key);
    grey.setVisible(key != null);
  }

  /** For tests: where a head's point is drawn, in the scene's coordinates. */
  public javafx.geometry.Point2D pointOnScreen(Head h) {
    double[] c = canvas.centre(h);
    return canvas.localToScreen(c[0], c[1]);
  }
}
