package io.headscope.app.gui;

import io.headscope.app.gui.corpus.CorpusView;
import io.headscope.app.gui.corpus.CorpusViewModel;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.favor.FavorView;
import io.headscope.app.gui.favor.FavorViewModel;
import io.headscope.app.gui.headmap.HeadMapView;
import io.headscope.app.gui.headmap.HeadMapViewModel;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.sweep.SweepView;
import io.headscope.app.gui.sweep.SweepViewModel;
import java.util.List;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.Tab;

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
      throw new io.headscope.model.HeadScopeException("Nothing to export yet: type a sentence first.");
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
    Tab sweepTab = view.addLeftTab("Ablation sweep", "tab-sweep", sweepView);
    CorpusViewModel corpusVm = new CorpusViewModel(main.session());
    CorpusView corpusView = new CorpusView(corpusVm, view);
    Tab corpusTab = view.addLeftTab("Corpus", "tab-corpus", corpusView);
    HeadMapViewModel headMapVm = new HeadMapViewModel(main.session(), main.scoresProperty());
    HeadMapView headMapView = new HeadMapView(headMapVm, view);
    Tab headMapTab = view.addLeftTab("Head map", "tab-head-map", headMapView);
    FavorViewModel favorVm = new FavorViewModel(main.session());
    FavorView favorView = new FavorView(favorVm);
    Tab favorTab = view.addLeftTab("Linear attention", "tab-favor", favorView);
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
    MenuItem favor = new MenuItem("Linear attention: which heads FAVOR+ approximates (Performer)");
    favor.setOnAction(e -> {
      view.showLeftTab(favorTab);
      favorVm.run();
    });
    view.analysisMenu().getItems().addAll(sweep, corpus, headMap, favor);

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
    MenuItem favorCsv = new MenuItem("FAVOR+ map errors CSV (linear attention)…");
    favorCsv.setId("export-favor");
    favorCsv.setOnAction(e -> exportFavor(view, favorVm));
    favorCsv.disableProperty().bind(favorVm.computedProperty().isNull());
    MenuItem favorPng = new MenuItem("FAVOR+ map errors as figure (PNG 300 dpi or SVG)…");
    favorPng.setId("export-favor-figure");
    favorPng.setOnAction(e -> view.exportFigure("favor", favorVm::figure));
    favorPng.disableProperty().bind(favorVm.computedProperty().isNull());
    view.exportMenu().getItems().addAll(new SeparatorMenuItem(), sentenceCsv, corpusCsv, ablationCsv, distancesCsv,
        favorCsv, new SeparatorMenuItem(), sweepPng, corpusPng, layerPng, headMapPng, favorPng);
    favorView.setOnExportCsv(() -> exportFavor(view, favorVm));

    sweepView.setOnExportCsv(() -> exportAblation(view, sweepVm));
  }

  private static void exportFavor(MainView view, FavorViewModel vm) {
    view.export("FAVOR+ CSV", "csv", "favor.csv", vm::csv, FavorViewModel::writeCsv);
  }

  private static void exportAblation(MainView view, SweepViewModel sweepVm) {
    view.export("ablation CSV", "csv", "ablation.csv", sweepVm::csv, SweepViewModel::writeCsv);
  }
}
