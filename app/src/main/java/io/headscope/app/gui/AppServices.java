package io.headscope.app.gui;

import io.headscope.app.gui.compare.CompareView;
import io.headscope.app.gui.compare.CompareViewModel;
import io.headscope.app.gui.corpus.CorpusView;
import io.headscope.app.gui.corpus.CorpusViewModel;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.head.FlowView;
import io.headscope.app.gui.head.FlowViewModel;
import io.headscope.app.gui.favor.FavorView;
import io.headscope.app.gui.favor.FavorViewModel;
import io.headscope.app.gui.headmap.HeadMapView;
import io.headscope.app.gui.headmap.HeadMapViewModel;
import io.headscope.app.gui.linguistics.LinguisticsView;
import io.headscope.app.gui.linguistics.LinguisticsViewModel;
import io.headscope.app.gui.layers.LayersView;
import io.headscope.app.gui.layers.LayersViewModel;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.prune.PruneView;
import io.headscope.app.gui.prune.PruneViewModel;
import io.headscope.app.gui.sweep.SweepView;
import io.headscope.app.gui.sweep.SweepViewModel;
import java.util.List;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.Tab;
import javafx.scene.control.TitledPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/**
 * Wires the analysis screens into the main view: the ablation sweep, the corpus run and the head map,
 * their menu items and their exports (each through the same writer as the matching CLI command).
 */
final class AppServices {
  private AppServices() {}

  /**
   * Clark et al.'s token types per layer as a figure: rows are layers, columns the share of attention
   * to [CLS], [SEP], punctuation and other tokens, weights beside norm-weighted.
   */
  static io.headscope.app.render.figure.Figure tokenTypeFigure(MainView view) {
    var layers = List.copyOf(view.headPanel().facts().viewModel().layersProperty());
    if (layers.isEmpty()) {
      throw new io.headscope.model.core.HeadScopeException("Nothing to export yet: type a sentence first.");
    }
    double[][] v = new double[layers.size()][8];
    List<String> rows = new java.util.ArrayList<>();
    for (int l = 0; l < layers.size(); l++) {
      var w = layers.get(l).weight();
      var n = layers.get(l).norm();
      v[l] = new double[] {w.cls(), w.sep(), w.punct(), w.other(), n.cls(), n.sep(), n.punct(), n.other()};
      rows.add("L" + (layers.get(l).layer() + 1));
    }
    MainViewModel m = view.viewModel();
    String input = m.textBProperty().get() == null || m.textBProperty().get().isBlank() ? m.textAProperty().get()
        : m.textAProperty().get() + " ‖ " + m.textBProperty().get();
    return io.headscope.app.render.figure.MatrixFigure.of(m.modelNameProperty().get() + " · attention to token types per layer",
        List.of("mean over the layer's heads and the query tokens (Clark et al. 2019); weights, then norm-weighted (Kobayashi)"),
        input, rows, List.of("[CLS] weight", "[SEP] weight", "punct. weight", "other weight",
            "[CLS] norm", "[SEP] norm", "punct. norm", "other norm"), v, false, "share of attention", 44, true);
  }

  static void install(MainView view) {
    MainViewModel main = view.viewModel();
    SweepViewModel sweepVm = new SweepViewModel(main.session());
    SweepView sweepView = new SweepView(sweepVm);
    // the pruning curves sit under the sweep, folded away until opened: the tab strip has no room for a tab
    PruneView pruneView = new PruneView(new PruneViewModel(main.session()), view);
    TitledPane prune = new TitledPane("Pruning curves (importance vs random order)", pruneView);
    prune.setId("prune-pane");
    prune.setExpanded(false);
    VBox.setVgrow(sweepView, Priority.ALWAYS);
    Tab sweepTab = view.addLeftTab("Sweep", "tab-sweep", new VBox(sweepView, prune));
    sweepTab.setTooltip(new javafx.scene.control.Tooltip("Ablation sweep: every head switched off in turn, the metric you choose"));
    CorpusViewModel corpusVm = new CorpusViewModel(main.session());
    CorpusView corpusView = new CorpusView(corpusVm, view);
    Tab corpusTab = view.addLeftTab("Corpus", "tab-corpus", corpusView);
    corpusTab.setTooltip(new javafx.scene.control.Tooltip("Corpus: categories and token types over a whole file"));
    HeadMapViewModel headMapVm = new HeadMapViewModel(main.session(), main.scoresProperty());
    HeadMapView headMapView = new HeadMapView(headMapVm, view);
    Tab headMapTab = view.addLeftTab("Head map", "tab-head-map", headMapView);
    headMapTab.setTooltip(new javafx.scene.control.Tooltip("Head map: which heads attend alike (Jensen-Shannon, MDS)"));
    LinguisticsViewModel lingVm = new LinguisticsViewModel(main.session());
    LinguisticsView lingView = new LinguisticsView(lingVm, view);
    Tab lingTab = view.addLeftTab("Linguistics", "tab-linguistics", lingView);
    lingTab.setTooltip(new javafx.scene.control.Tooltip("Linguistics: which heads track dependency relations and coreference in a treebank"));
    FavorViewModel favorVm = new FavorViewModel(main.session());
    FavorView favorView = new FavorView(favorVm);
    Tab favorTab = view.addLeftTab("FAVOR+", "tab-favor", favorView);
    favorTab.setTooltip(new javafx.scene.control.Tooltip("Linear attention: which heads Performer's FAVOR+ could replace"));
    // a corpus file opened on the corpus screen can be mapped too
    corpusVm.sourceProperty().addListener((o, a, b) -> headMapView.offer(b));

    MenuItem sweep = new MenuItem("Ablation sweep: every head off alone");
    sweep.setOnAction(e -> {
      view.showLeftTab(sweepTab);
      sweepVm.run();
    });
    MenuItem corpus = new MenuItem("Corpus run: classify every head over a corpus…");
    corpus.setOnAction(e -> view.showLeftTab(corpusTab));
    MenuItem headMap = new MenuItem("Head map: which heads attend alike (Clark et al.)");
    headMap.setOnAction(e -> view.showLeftTab(headMapTab));
    MenuItem linguistics = new MenuItem("Linguistics: which heads track syntax and coreference (CoNLL-U)…");
    linguistics.setOnAction(e -> view.showLeftTab(lingTab));
    MenuItem favor = new MenuItem("Linear attention: which heads FAVOR+ approximates (Performer)");
    favor.setOnAction(e -> {
      view.showLeftTab(favorTab);
      favorVm.run();
    });
    view.analysisMenu().getItems().addAll(sweep, corpus, headMap, linguistics, favor);

    MenuItem sentenceCsv = new MenuItem("Head classification CSV (this sentence)…");
    sentenceCsv.setId("export-classify-sentence");
    sentenceCsv.setOnAction(e -> view.export("head classification CSV", "csv", "classify.csv",
        () -> Exports.oneInput(List.copyOf(main.scoresProperty()), main.classifier()), Exports::classificationCsv));
    sentenceCsv.disableProperty().bind(main.traceProperty().isNull());
    MenuItem corpusCsv = new MenuItem("Head classification CSV (corpus run)…");
    corpusCsv.setId("export-classify-corpus");
    corpusCsv.setOnAction(e -> corpusView.exportCsv());
    corpusCsv.disableProperty().bind(corpusVm.resultProperty().isNull());
    MenuItem ablationCsv = new MenuItem("Ablation CSV (sweep)…");
    ablationCsv.setId("export-ablation");
    ablationCsv.setOnAction(e -> exportAblation(view, sweepVm));
    ablationCsv.disableProperty().bind(sweepVm.resultProperty().isNull());
    MenuItem sweepPng = new MenuItem("Sweep as figure (PNG 300 dpi or SVG)…");
    sweepPng.setId("export-sweep-figure");
    sweepPng.setOnAction(e -> view.exportFigure("sweep", sweepVm::figure));
    sweepPng.disableProperty().bind(sweepVm.resultProperty().isNull().and(sweepVm.importanceProperty().isNull()));
    MenuItem corpusPng = new MenuItem("Corpus run as figure (PNG 300 dpi or SVG)…");
    corpusPng.setId("export-corpus-figure");
    corpusPng.setOnAction(e -> corpusView.exportFigure());
    corpusPng.disableProperty().bind(corpusVm.resultProperty().isNull());
    MenuItem layerPng = new MenuItem("Token types per layer as figure (PNG 300 dpi or SVG)…");
    layerPng.setOnAction(e -> view.exportFigure("token-types", () -> tokenTypeFigure(view)));
    MenuItem distancesCsv = new MenuItem("Head distances CSV (head map)…");
    distancesCsv.setId("export-head-distances");
    distancesCsv.setOnAction(e -> headMapView.exportCsv());
    distancesCsv.disableProperty().bind(headMapVm.mapProperty().isNull());
    MenuItem headMapPng = new MenuItem("Head map as figure (PNG 300 dpi or SVG)…");
    headMapPng.setId("export-head-map-figure");
    headMapPng.setOnAction(e -> headMapView.exportFigure());
    headMapPng.disableProperty().bind(headMapVm.mapProperty().isNull());
    MenuItem lingCsv = new MenuItem("Linguistics CSVs (relations, best heads, coreference)…");
    lingCsv.setId("export-linguistics-csv");
    lingCsv.setOnAction(e -> lingView.exportCsv());
    lingCsv.disableProperty().bind(lingVm.resultProperty().isNull());
    MenuItem lingPng = new MenuItem("Linguistics grid as figure (PNG 300 dpi or SVG)…");
    lingPng.setId("export-linguistics-figure");
    lingPng.setOnAction(e -> lingView.exportFigure());
    lingPng.disableProperty().bind(lingVm.resultProperty().isNull());
    MenuItem favorCsv = new MenuItem("FAVOR+ map errors CSV (linear attention)…");
    favorCsv.setId("export-favor");
    favorCsv.setOnAction(e -> exportFavor(view, favorVm));
    favorCsv.disableProperty().bind(favorVm.computedProperty().isNull());
    MenuItem favorPng = new MenuItem("FAVOR+ map errors as figure (PNG 300 dpi or SVG)…");
    favorPng.setId("export-favor-figure");
    favorPng.setOnAction(e -> view.exportFigure("favor", favorVm::figure));
    favorPng.disableProperty().bind(favorVm.computedProperty().isNull());
    view.exportMenu().getItems().addAll(new SeparatorMenuItem(), sentenceCsv, corpusCsv, ablationCsv, distancesCsv,
        lingCsv, favorCsv, new SeparatorMenuItem(), sweepPng, corpusPng, layerPng, headMapPng, lingPng, favorPng);
    favorView.setOnExportCsv(() -> exportFavor(view, favorVm));

    sweepView.setOnExportCsv(() -> exportAblation(view, sweepVm));
    installLayers(view, corpusVm);
    installFlow(view);
    installCompare(view, corpusVm);
  }

  /** The Compare screen (base vs fine-tuned, head by head), its menu item and its exports. */
  private static void installCompare(MainView view, CorpusViewModel corpusVm) {
    CompareViewModel vm = new CompareViewModel(view.viewModel().session(), view.viewModel().repository());
    CompareView compareView = new CompareView(vm, view);
    Tab tab = view.addLeftTab("Compare", "tab-compare", compareView);
    tab.setTooltip(new javafx.scene.control.Tooltip("Compare: the loaded model against a second checkpoint "
        + "(e.g. fine-tuned), head by head"));
    corpusVm.sourceProperty().addListener((o, a, b) -> compareView.offer(b));
    MenuItem show = new MenuItem("Compare: the loaded model against a fine-tuned one, head by head (Kovaleva)");
    show.setOnAction(e -> view.showLeftTab(tab));
    view.analysisMenu().getItems().add(show);
    MenuItem csv = new MenuItem("Compare CSV…");
    csv.setId("export-compare");
    csv.setOnAction(e -> compareView.exportCsv());
    csv.disableProperty().bind(vm.resultProperty().isNull());
    MenuItem figure = new MenuItem("Compare grid as figure (PNG 300 dpi or SVG)…");
    figure.setId("export-compare-figure");
    figure.setOnAction(e -> compareView.exportFigure());
    figure.disableProperty().bind(vm.resultProperty().isNull());
    view.exportMenu().getItems().addAll(new SeparatorMenuItem(), csv, figure);
  }

  /** The Information flow screen (rollout and flow of the current input) and its exports. */
  private static void installFlow(MainView view) {
    FlowViewModel flowVm = new FlowViewModel(view.viewModel().session());
    FlowView flowView = new FlowView(flowVm, view);
    Tab flowTab = view.addLeftTab("Flow", "tab-flow", flowView);
    flowTab.setTooltip(new javafx.scene.control.Tooltip("Information flow: attention rollout, attention flow and token Jacobians"));
    MenuItem show = new MenuItem("Information flow: attention rollout and flow (Abnar & Zuidema)");
    show.setOnAction(e -> view.showLeftTab(flowTab));
    view.analysisMenu().getItems().add(show);
    MenuItem json = new MenuItem("Rollout and flow JSON…");
    json.setId("export-rollout");
    json.setOnAction(e -> flowView.exportRolloutJson());
    json.disableProperty().bind(flowVm.resultProperty().isNull());
    MenuItem figure = new MenuItem("Rollout or flow as figure (PNG 300 dpi or SVG)…");
    figure.setId("export-flow-figure");
    figure.setOnAction(e -> flowView.exportFigure());
    figure.disableProperty().bind(flowVm.matrixProperty().isNull());
    view.exportMenu().getItems().addAll(json, figure);
  }

  /** The Layers screen (layer compatibility), its menu item and its exports. */
  private static void installLayers(MainView view, CorpusViewModel corpusVm) {
    LayersViewModel layersVm = new LayersViewModel(view.viewModel().session());
    LayersView layersView = new LayersView(layersVm, view);
    Tab layersTab = view.addLeftTab("Layers", "tab-layers", layersView);
    layersTab.setTooltip(new javafx.scene.control.Tooltip("Layer compatibility: which layers can stand in for which"));
    corpusVm.sourceProperty().addListener((o, a, b) -> layersView.offer(b));
    MenuItem show = new MenuItem("Layers: which layers can stand in for which");
    show.setOnAction(e -> view.showLeftTab(layersTab));
    view.analysisMenu().getItems().add(show);
    MenuItem csv = new MenuItem("Layer compatibility CSV…");
    csv.setId("export-layers");
    csv.setOnAction(e -> layersView.exportCsv());
    csv.disableProperty().bind(layersVm.resultProperty().isNull());
    MenuItem figure = new MenuItem("Layer compatibility as figure (PNG 300 dpi or SVG)…");
    figure.setId("export-layers-figure");
    figure.setOnAction(e -> layersView.exportFigure());
    figure.disableProperty().bind(layersVm.resultProperty().isNull());
    view.exportMenu().getItems().addAll(new SeparatorMenuItem(), csv, figure);
  }

  private static void exportFavor(MainView view, FavorViewModel vm) {
    view.export("FAVOR+ CSV", "csv", "favor.csv", vm::csv, FavorViewModel::writeCsv);
  }

  private static void exportAblation(MainView view, SweepViewModel sweepVm) {
    view.export("ablation CSV", "csv", "ablation.csv", sweepVm::csv, SweepViewModel::writeCsv);
  }
}
