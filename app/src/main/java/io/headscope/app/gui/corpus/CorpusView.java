package io.headscope.app.gui.corpus;

import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.gui.facts.TokenTypeChart;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.style.FxColors;
import io.headscope.model.Head;
import java.nio.file.Path;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.scene.shape.Rectangle;

/**
 * The corpus screen: choose a corpus, run it (progress, Cancel), then each head's category shares as
 * a grid, the model-wide share of each category, token types per layer, and the CSV export.
 */
public final class CorpusView extends VBox {
  private final CorpusViewModel vm;
  private final MainView main;
  private final ShareGrid grid;
  private final CategoryShareChart shares = new CategoryShareChart();
  private final TokenTypeChart layers = new TokenTypeChart(120);
  private final Label hover = new Label(" ");
  private final ScrollPane scroll;
  private final VBox results;

  public CorpusView(CorpusViewModel vm, MainView main) {
    this.vm = vm;
    this.main = main;
    setId("corpus-view");
    setSpacing(4);
    setPadding(new Insets(4));
    grid = new ShareGrid(vm::select, h -> hover.setText(h == null ? " " : vm.describe(h)));

    ChoiceBox<CorpusSource> source = new ChoiceBox<>();
    source.setId("corpus-source");
    source.getItems().setAll(CorpusSource.SHIPPED);
    source.valueProperty().bindBidirectional(vm.sourceProperty());
    Button open = new Button("Open file…");
    open.setId("corpus-open");
    open.setOnAction(e -> {
      Path p = main.files().openFile("A corpus: UTF-8 text, one input per line, a TAB between the sentences of a pair");
      if (p != null) {
        CorpusSource s = CorpusSource.file(p);
        source.getItems().add(s);
        vm.sourceProperty().set(s);
      }
    });
    Button run = new Button("Run");
    run.setId("corpus-run");
    run.setDefaultButton(false);
    run.disableProperty().bind(vm.runningProperty().or(main.viewModel().modelProperty().isNull()));
    run.setOnAction(e -> vm.run());
    Button cancel = new Button("Cancel");
    cancel.setId("corpus-cancel");
    cancel.disableProperty().bind(vm.runningProperty().not());
    cancel.setOnAction(e -> vm.cancel());
    ProgressBar bar = new ProgressBar();
    bar.setId("corpus-progress");
    bar.setPrefWidth(120);
    bar.progressProperty().bind(vm.progressProperty());
    bar.visibleProperty().bind(vm.runningProperty());
    bar.managedProperty().bind(bar.visibleProperty());
    for (javafx.scene.control.Control c : new javafx.scene.control.Control[] {open, run, cancel}) {
      c.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
    }
    Label label = new Label("Corpus");
    label.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
    HBox controls = new HBox(6, label, source, open, run, cancel, bar);
    controls.setAlignment(Pos.CENTER_LEFT);
    Label status = new Label();
    status.setId("corpus-status");
    status.setWrapText(true);
    status.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
    status.textProperty().bind(vm.statusProperty());

    Button csv = new Button("Export CSV…");
    csv.setId("corpus-export");
    csv.setOnAction(e -> exportCsv());
    Button png = new Button("Charts as PNG…");
    png.setOnAction(e -> main.exportPng("corpus.png", this::chartsNode));
    HBox exports = new HBox(6, csv, png);
    hover.getStyleClass().add("hs-readout");
    hover.setWrapText(true);
    results = new VBox(4, heading("Each head's most frequent category and its share of inputs (%)"),
        colourKey(), grid, hover, heading("Share of all maps (inputs × heads) in each category"), shares,
        heading("Token types per layer over the corpus"), layers, exports);
    results.setPadding(new Insets(2));
    results.visibleProperty().bind(vm.resultProperty().isNotNull());
    scroll = new ScrollPane(results);
    scroll.setFitToWidth(true);
    VBox.setVgrow(scroll, Priority.ALWAYS);
    getChildren().addAll(controls, status, scroll);
    vm.resultProperty().addListener((o, a, b) -> refresh());
    scroll.viewportBoundsProperty().addListener((o, a, b) -> refresh());
  }

  /** Asks for a file and writes the classification CSV; errors show as a dialog. */
  public void exportCsv() {
    main.export("head classification CSV", "csv", "classify.csv", vm::exportCsv);
  }

  /** The node a PNG export of the corpus charts snapshots. */
  public Node chartsNode() {
    return results;
  }

  private static Label heading(String s) {
    Label l = new Label(s);
    l.getStyleClass().add("hs-small-heading");
    l.setWrapText(true);
    return l;
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

  /** The category colours of the share grid, in one line (the same colours as the main grid's frames). */
  private static HBox colourKey() {
    HBox key = new HBox(10);
    key.setId("corpus-colour-key");
    for (HeadPattern p : HeadPattern.values()) {
      Label l = new Label(p.label(), new Rectangle(11, 11, FxColors.category(p)));
      l.getStyleClass().add("hs-small");
      key.getChildren().add(l);
    }
    return key;
  }
}
