package io.headscope.app.gui.corpus;

import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.gui.ViewLoader;
import io.headscope.app.gui.facts.TokenTypeChart;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.style.CategorySwatch;
import io.headscope.model.core.Head;
import java.nio.file.Path;
import javafx.fxml.FXML;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/**
 * The corpus screen: choose a corpus, run it (progress, Cancel), then each head's category shares as
 * a grid, the model-wide share of each category, token types per layer, and the CSV export.
 */
public final class CorpusView extends VBox {
  private final CorpusViewModel vm;
  private final MainView main;
  @FXML private ChoiceBox<CorpusSource> sourceChoice;
  @FXML private Button runButton;
  @FXML private Button cancelButton;
  @FXML private ProgressBar progressBar;
  @FXML private Label statusLabel;
  @FXML private ScrollPane scroll;
  @FXML private VBox results;
  @FXML private HBox colourKey;
  @FXML private ShareGrid grid;
  @FXML private Label hover;
  @FXML private CategoryShareChart shares;
  @FXML private TokenTypeChart layers;

  public CorpusView(CorpusViewModel vm, MainView main) {
    this.vm = vm;
    this.main = main;
    ViewLoader.load(this);
    grid.onHead(vm::select, h -> hover.setText(h == null ? " " : vm.describe(h)));
    sourceChoice.getItems().setAll(CorpusSource.SHIPPED);
    sourceChoice.valueProperty().bindBidirectional(vm.sourceProperty());
    runButton.disableProperty().bind(vm.runningProperty().or(main.viewModel().modelProperty().isNull()));
    cancelButton.disableProperty().bind(vm.runningProperty().not());
    progressBar.progressProperty().bind(vm.progressProperty());
    progressBar.visibleProperty().bind(vm.runningProperty());
    progressBar.managedProperty().bind(progressBar.visibleProperty());
    statusLabel.textProperty().bind(vm.statusProperty());
    for (HeadPattern p : HeadPattern.values()) {
      colourKey.getChildren().add(CategorySwatch.labelled(p.label(), p));
    }
    results.visibleProperty().bind(vm.resultProperty().isNotNull());
    vm.resultProperty().addListener((o, a, b) -> refresh());
    scroll.viewportBoundsProperty().addListener((o, a, b) -> refresh());
  }

  @FXML
  private void openFile() {
    Path p = main.files().openFile("A corpus: UTF-8 text, one input per line, a TAB between the sentences of a pair");
    if (p != null) {
      CorpusSource s = CorpusSource.file(p);
      sourceChoice.getItems().add(s);
      vm.sourceProperty().set(s);
    }
  }

  @FXML
  private void run() {
    vm.run();
  }

  @FXML
  private void cancel() {
    vm.cancel();
  }

  @FXML
  private void exportPng() {
    exportFigure();
  }

  /** The corpus run as a figure: each head's most frequent category and the model-wide shares. */
  public void exportFigure() {
    main.exportFigure("corpus", () -> {
      CorpusResult r = vm.resultProperty().get();
      if (r == null) {
        throw new io.headscope.model.core.HeadScopeException("Run the corpus first.");
      }
      CorpusSource s = vm.sourceProperty().get();
      return io.headscope.app.render.figure.CorpusFigure.of(r, s == null ? "corpus" : s.toString());
    });
  }

  /** Asks for a file and writes the classification CSV; errors show as a dialog. */
  @FXML
  public void exportCsv() {
    main.export("head classification CSV", "csv", "classify.csv", vm.resultProperty()::get, CorpusViewModel::writeCsv);
  }

  /** The node a PNG export of the corpus charts snapshots. */
  public Node chartsNode() {
    return results;
  }

  private void refresh() {
    CorpusResult r = vm.resultProperty().get();
    double w = scroll.getViewportBounds().getWidth();
    grid.show(r, w > 0 ? w - 8 : 500, 380);
    shares.setWidth(Math.max(300, Math.min(520, w - 10)));
    shares.show(r == null ? null : r.modelShares());
    layers.show(r == null ? java.util.List.of() : r.perLayer(), -1);
  }

  /** For tests: the head under a point of the share grid. */
  Head headAt(double x, double y) {
    return grid.headAt(x, y);
  }
}
