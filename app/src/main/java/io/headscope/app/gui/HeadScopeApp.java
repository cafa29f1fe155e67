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
    MainView view = new MainView(vm);
    view.install(Screens.ALL);
    javafx.geometry.Rectangle2D screen = javafx.stage.Screen.getPrimary().getVisualBounds();
    Scene scene = new Scene(view, width(screen.getWidth(), 1280), width(screen.getHeight(), 800));
    Theme.apply(scene);
    stage.setScene(scene);
    stage.setTitle("HeadScope");
    return view;
  }

  /**
   * The window's side on a screen of this side: the design size (1280 x 800) where the screen has room,
   * nine tenths of a larger screen, never more than the screen (a 1920 x 1080 desktop opens at 1728 x 972).
   */
  static double width(double screen, double design) {
    return Math.min(screen, Math.max(design, 0.9 * screen));
  }

  @Override
  public void stop() {
    if (worker != null) {
      worker.close();
    }
  }
}
