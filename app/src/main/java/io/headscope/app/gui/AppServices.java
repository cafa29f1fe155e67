package io.headscope.app.gui;

import io.headscope.app.gui.main.MainView;
import javafx.scene.control.MenuItem;

/**
 * Wires the analysis services into the main view: the Kovaleva classification, the corpus run and
 * the ablation sweep. Until those services are in the build, their menu items are shown disabled and
 * labelled, never backed by stand-in data.
 */
final class AppServices {
  private AppServices() {}

  static void install(MainView view) {
    MenuItem corpus = new MenuItem("Corpus run… (needs the analysis module's classifier: not in this build)");
    corpus.setDisable(true);
    MenuItem sweep = new MenuItem("Ablation sweep (not in this build)");
    sweep.setDisable(true);
    view.analysisMenu().getItems().addAll(corpus, sweep);
    MenuItem csv = new MenuItem("Head classification CSV… (not in this build)");
    csv.setDisable(true);
    view.exportMenu().getItems().add(csv);
  }
}
