package io.headscope.app.gui.headmap;

import io.headscope.analysis.distance.HeadMap;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.gui.ViewLoader;
import io.headscope.app.gui.corpus.CorpusSource;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.style.CategorySwatch;
import io.headscope.app.render.figure.HeadMapFigure;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/**
 * The head map screen: choose the current input or a corpus, Draw (progress, Cancel), then every head
 * as a point placed by how alike it attends to the others, a colour key, and the exports (the figure
 * and the distances CSV).
 */
public final class HeadMapView extends VBox {
  private final HeadMapViewModel vm;
  private final MainView main;
  @FXML private ChoiceBox<CorpusSource> sourceChoice;
  @FXML private Button drawButton;
  @FXML private Button cancelButton;
  @FXML private ProgressBar progressBar;
  @FXML private Label statusLabel;
  @FXML private ScrollPane scroll;
  @FXML private VBox results;
  @FXML private HBox colourKey;
  @FXML private HeadMapCanvas canvas;
  @FXML private Label hover;

  public HeadMapView(HeadMapViewModel vm, MainView main) {
    this.vm = vm;
    this.main = main;
    ViewLoader.load(this);
    canvas.onHead(vm::select, h -> hover.setText(vm.describe(h)));
    sourceChoice.getItems().add(HeadMapViewModel.CURRENT_INPUT);
    sourceChoice.getItems().addAll(CorpusSource.SHIPPED);
    sourceChoice.valueProperty().bindBidirectional(vm.sourceProperty());
    drawButton.disableProperty().bind(vm.runningProperty().or(main.viewModel().modelProperty().isNull()));
    cancelButton.disableProperty().bind(vm.runningProperty().not());
    progressBar.progressProperty().bind(vm.progressProperty());
    progressBar.visibleProperty().bind(vm.runningProperty());
    progressBar.managedProperty().bind(progressBar.visibleProperty());
    statusLabel.textProperty().bind(vm.statusProperty());
    for (HeadPattern p : HeadPattern.values()) {
      colourKey.getChildren().add(CategorySwatch.labelled(p.label(), p));
    }
    results.visibleProperty().bind(vm.mapProperty().isNotNull());
    vm.mapProperty().addListener((o, a, b) -> refresh());
    vm.scores().addListener((ListChangeListener<Object>) c -> refresh());
    vm.selectedProperty().addListener((o, a, b) -> canvas.select(b));
    scroll.viewportBoundsProperty().addListener((o, a, b) -> refresh());
  }

  /** A corpus file chosen elsewhere (the corpus screen) is offered here too. */
  public void offer(CorpusSource s) {
    if (s != null && !sourceChoice.getItems().contains(s)) {
      sourceChoice.getItems().add(s);
    }
  }

  @FXML
  private void openFile() {
    Path p = main.files().openFile("A corpus: UTF-8 text, one input per line, a TAB between the sentences of a pair");
    if (p != null) {
      CorpusSource s = CorpusSource.file(p);
      offer(s);
      vm.sourceProperty().set(s);
    }
  }

  @FXML
  private void draw() {
    vm.draw();
  }

  @FXML
  private void cancel() {
    vm.cancel();
  }

  /** The map as a figure (PNG at 300 dpi or SVG), through the one figure renderer. */
  @FXML
  public void exportFigure() {
    main.exportFigure("head-map", () -> {
      HeadMap m = vm.mapProperty().get();
      if (m == null) {
        throw new HeadScopeException("Draw the map first.");
      }
      String a = main.viewModel().textAProperty().get();
      String b = main.viewModel().textBProperty().get();
      return HeadMapFigure.of(m, vm::category, b == null || b.isBlank() ? a : a + " ‖ " + b);
    });
  }

  /** Asks for a file and writes the distances CSV (the CLI's {@code head-distances} file). */
  @FXML
  public void exportCsv() {
    main.export("head distances CSV", "csv", "distances.csv", vm.mapProperty()::get, HeadMapViewModel::writeCsv);
  }

  private void refresh() {
    double w = scroll.getViewportBounds().getWidth();
    double h = scroll.getViewportBounds().getHeight();
    // square, as large as the pane allows with the heading, the key, the read-out and the export
    // buttons (about 110 px) still in view
    double size = Math.max(240, Math.min(w - 8, h - 110));
    canvas.show(vm.mapProperty().get(), vm::category, vm.selectedProperty().get(), size);
  }

  /** For tests: where a head's point is drawn, in the scene's coordinates. */
  public javafx.geometry.Point2D pointOnScreen(Head h) {
    double[] c = canvas.centre(h);
    return canvas.localToScreen(c[0], c[1]);
  }
}
