package io.headscope.app.gui;

import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.style.Theme;
import io.headscope.model.repository.ModelRepository;
import javafx.application.Application;
import javafx.scene.Scene;
import javafx.stage.Stage;

/** The desktop app: one window on the embedded bert-base-uncased, loaded in the background. */
public final class HeadScopeApp extends Application {
  static final String FIRST_SENTENCE = "The cat sat on the [MASK] because it was tired.";
  private FxWorker worker;

  public static void launchApp(String[] args) {
    Application.launch(HeadScopeApp.class, args);
  }

  @Override
  public void start(Stage stage) {
    worker = new FxWorker();
    MainView view = create(stage, worker, ModelRepository.standard());
    view.viewModel().textAProperty().set(FIRST_SENTENCE);
    stage.show();
    view.viewModel().loadModel(System.getProperty("headscope.model", ModelRepository.DEFAULT_MODEL));
  }

  /** Builds the window's content on a stage (the UI tests use this with their own model). */
  public static MainView create(Stage stage, io.headscope.app.gui.exec.Worker worker, ModelRepository repo) {
    MainViewModel vm = new MainViewModel(worker, repo);
    MainView view = new MainView(vm, null);
    AppServices.install(view);
    Scene scene = new Scene(view, 1280, 800);
    Theme.apply(scene);
    stage.setScene(scene);
    stage.setTitle("HeadScope");
    view.setFileAsker(new io.headscope.app.gui.main.DialogFileAsker(stage));
    return view;
  }

  @Override
  public void stop() {
    if (worker != null) {
      worker.close();
    }
  }
}
