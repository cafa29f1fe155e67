package io.headscope.app.gui;

import io.headscope.app.gui.corpus.CorpusView;
import io.headscope.app.gui.corpus.CorpusViewModel;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.sweep.SweepView;
import io.headscope.app.gui.sweep.SweepViewModel;
import java.util.List;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.Tab;

/**
 * Wires the analysis screens into the main view: the ablation sweep and the corpus run, their menu
 * items and their exports (each through the same writer as the matching CLI command).
 */
final class AppServices {
  private AppServices() {}

  static void install(MainView view) {
    MainViewModel main = view.viewModel();
    SweepViewModel sweepVm = new SweepViewModel(main.session());
    SweepView sweepView = new SweepView(sweepVm);
    Tab sweepTab = view.addLeftTab("Ablation sweep", "tab-sweep", sweepView);
    CorpusViewModel corpusVm = new CorpusViewModel(main.session());
    CorpusView corpusView = new CorpusView(corpusVm, view);
    Tab corpusTab = view.addLeftTab("Corpus", "tab-corpus", corpusView);

    MenuItem sweep = new MenuItem("Ablation sweep: every head off alone");
    sweep.setOnAction(e -> {
      view.showLeftTab(sweepTab);
      sweepVm.run();
    });
    MenuItem corpus = new MenuItem("Corpus run: classify every head over a corpus…");
    corpus.setOnAction(e -> view.showLeftTab(corpusTab));
    view.analysisMenu().getItems().addAll(sweep, corpus);

    MenuItem sentenceCsv = new MenuItem("Head classification CSV (this sentence)…");
    sentenceCsv.setId("export-classify-sentence");
    sentenceCsv.setOnAction(e -> view.export("head classification CSV", "csv", "classify.csv",
        () -> Exports.oneInput(List.copyOf(main.scoresProperty()), main.thresholds()), Exports::classificationCsv));
    sentenceCsv.disableProperty().bind(main.traceProperty().isNull());
    MenuItem corpusCsv = new MenuItem("Head classification CSV (corpus run)…");
    corpusCsv.setId("export-classify-corpus");
    corpusCsv.setOnAction(e -> corpusView.exportCsv());
    corpusCsv.disableProperty().bind(corpusVm.resultProperty().isNull());
    MenuItem ablationCsv = new MenuItem("Ablation CSV (sweep)…");
    ablationCsv.setId("export-ablation");
    ablationCsv.setOnAction(e -> exportAblation(view, sweepVm));
    ablationCsv.disableProperty().bind(sweepVm.resultProperty().isNull());
    MenuItem sweepPng = new MenuItem("Sweep chart as PNG…");
    sweepPng.setOnAction(e -> view.exportPng("sweep.png", sweepView::chartNode));
    sweepPng.disableProperty().bind(sweepVm.resultProperty().isNull());
    MenuItem corpusPng = new MenuItem("Corpus charts as PNG…");
    corpusPng.setOnAction(e -> view.exportPng("corpus.png", corpusView::chartsNode));
    corpusPng.disableProperty().bind(corpusVm.resultProperty().isNull());
    MenuItem layerPng = new MenuItem("Token types per layer as PNG…");
    layerPng.setOnAction(e -> view.exportPng("token-types.png", () -> view.headPanel().facts().layerChart()));
    view.exportMenu().getItems().addAll(new SeparatorMenuItem(), sentenceCsv, corpusCsv, ablationCsv,
        new SeparatorMenuItem(), sweepPng, corpusPng, layerPng);

    sweepView.setOnExportCsv(() -> exportAblation(view, sweepVm));
  }

  private static void exportAblation(MainView view, SweepViewModel sweepVm) {
    view.export("ablation CSV", "csv", "ablation.csv", sweepVm.resultProperty()::get, Exports::ablationCsv);
  }
}
