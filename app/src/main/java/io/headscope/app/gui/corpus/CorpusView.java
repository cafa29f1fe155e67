package io.headscope.app.gui.corpus;

import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.gui.chart.TokenTypeChart;
import io.headscope.app.gui.screen.CorpusSource;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.app.gui.screen.SourcePicker;
import io.headscope.app.gui.style.CategorySwatch;
import io.headscope.model.core.Head;
import java.util.List;
import javafx.fxml.FXML;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/**
 * The corpus screen: choose a corpus, run it (progress, Cancel), then each head's category shares as
 * a grid, the model-wide share of each category, token types per layer, and the CSV export.
 */
public final class CorpusView extends ScreenView<CorpusViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("corpus", "Heads", "Corpus",
      "Corpus run: classify every head over a corpus…", "Corpus: categories and token types over a whole file",
      c -> new CorpusView(new CorpusViewModel(c.session()), c));

  @Override
  public List<ExportItem> exports() {
    return List.of(whenDone("export-classify-corpus", "Head classification CSV (corpus run)…", this::exportCsv),
        whenDone("export-corpus-figure", "Corpus run as figure (PNG 300 dpi or SVG)…", this::exportFigure));
  }

  @FXML private SourcePicker sources;
  @FXML private ScrollPane scroll;
  @FXML private VBox results;
  @FXML private HBox colourKey;
  @FXML private ShareGrid grid;
  @FXML private Label hover;
  @FXML private CategoryShareChart shares;
  @FXML private TokenTypeChart layers;

  public CorpusView(CorpusViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    grid.onHead(vm::select, h -> hover.setText(h == null ? " " : vm.describe(h)));
    sources.bind(context, vm.sourceProperty(), List.of());
    bindRun(vm::run);
    for (HeadPattern p : HeadPattern.values()) {
      colourKey.getChildren().add(CategorySwatch.labelled(p.label(), p));
    }
    results.visibleProperty().bind(vm.resultProperty().isNotNull());
    vm.resultProperty().addListener((o, a, b) -> refresh());
    scroll.viewportBoundsProperty().addListener((o, a, b) -> refresh());
  }

  @FXML
  private void exportPng() {
    exportFigure();
  }

  /** The corpus run as a figure: each head's most frequent category and the model-wide shares. */
  public void exportFigure() {
    context.dialogs().exportFigure("corpus", () -> {
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
    context.dialogs().export("head classification CSV", "csv", "classify.csv", vm.resultProperty()::get,
        CorpusViewModel::writeCsv);
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
    layers.show(r == null ? java.util.List.of() : r.perLayer(), -1, vm.tokenTypeNames());
  }

  /** For tests: the head under a point of the share grid. */
  Head headAt(double x, double y) {
    return grid.headAt(x, y);
  }
}
