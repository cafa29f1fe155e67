package io.headscope.app.gui;

import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.sweep.SweepView;
import io.headscope.app.gui.sweep.SweepViewModel;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Tab;

/**
 * Wires the analysis services into the main view: the ablation sweep, the Kovaleva classification
 * and the corpus run. A service not yet in the build shows a disabled, labelled menu item, never
 * stand-in data.
 */
final class AppServices {
  private AppServices() {}

  static void install(MainView view) {
    SweepViewModel sweepVm = new SweepViewModel(view.viewModel());
    SweepView sweepView = new SweepView(sweepVm);
    Tab sweepTab = view.addLeftTab("Ablation sweep", "tab-sweep", sweepView);
    MenuItem sweep = new MenuItem("Ablation sweep: every head off alone");
    sweep.setOnAction(e -> {
      view.showLeftTab(sweepTab);
      sweepVm.run();
    });
    MenuItem corpus = new MenuItem("Corpus run… (needs the analysis module's classifier: not in this build)");
    corpus.setDisable(true);
    view.analysisMenu().getItems().addAll(sweep, corpus);

    MenuItem sweepPng = new MenuItem("Sweep chart as PNG…");
    sweepPng.setOnAction(e -> view.exportPng("sweep.png", sweepView::chartNode));
    sweepPng.disableProperty().bind(sweepVm.resultProperty().isNull());
    MenuItem csv = new MenuItem("Head classification CSV… (not in this build)");
    csv.setDisable(true);
    MenuItem ablationCsv = new MenuItem("Ablation CSV… (no ablation CSV writer in this build)");
    ablationCsv.setDisable(true);
    view.exportMenu().getItems().addAll(sweepPng, csv, ablationCsv);
  }
}
