package io.headscope.app.gui.main;

import io.headscope.app.gui.ViewLoader;
import io.headscope.app.gui.dialog.DialogService;
import io.headscope.app.gui.dialog.FxDialogService;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.grid.CategoryLegend;
import io.headscope.app.gui.grid.ModelGridView;
import io.headscope.app.gui.head.HeadView;
import io.headscope.app.gui.head.HeadViewModel;
import io.headscope.app.gui.predict.PredictionsView;
import io.headscope.app.gui.style.States;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.MapsShown;
import io.headscope.app.render.figure.Caption;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.FigureFile;
import io.headscope.app.render.figure.GridFigure;
import io.headscope.app.render.figure.HeadFigure;
import io.headscope.app.render.figure.LinesFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import javafx.animation.PauseTransition;
import javafx.fxml.FXML;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.Duration;

/** The main window's content: menus, input, token strip, model grid, head view, panels, status bar. */
public final class MainView extends BorderPane {
  /** Typing pauses this long before the model runs, so it runs once per pause, not per key. */
  static final Duration DEBOUNCE = Duration.millis(350);
  /** The opacity of a result shown while a newer input runs. */
  static final double STALE_OPACITY = 0.45;

  private final MainViewModel vm;
  private final HeadViewModel headVm;
  private final ModelGridView grid;
  private final HeadView headView;
  private final HeadPanel headPanel;
  private final CategoryLegend legend;
  private FileAsker files;
  private DialogService dialogs = new FxDialogService(() -> getScene() == null ? null : getScene().getWindow());
  /** Exports, written off the FX thread one at a time. */
  private final BackgroundJob exports;
  @FXML private Menu modelMenu;
  @FXML private Menu analysisMenu;
  @FXML private Menu exportMenu;
  @FXML private TextField textA;
  @FXML private TextField textB;
  @FXML private ChoiceBox<HeadMask.Mode> modeChoice;
  @FXML private javafx.scene.control.RadioMenuItem classifierLearned;
  @FXML private javafx.scene.control.RadioMenuItem classifierRule;
  @FXML private Button allOnButton;
  @FXML private HBox mapsToggle;
  @FXML private Label inputNote;
  @FXML private TokenStrip tokenStrip;
  @FXML private TabPane leftTabs;
  @FXML private SplitPane center;
  @FXML private SplitPane right;
  @FXML private SplitPane lower;
  @FXML private Label modelLabel;
  @FXML private ProgressBar progress;
  @FXML private Label status;

  public MainView(MainViewModel vm, FileAsker files) {
    this.vm = vm;
    this.files = files;
    this.headVm = new HeadViewModel(vm.session());
    this.grid = new ModelGridView(vm);
    this.legend = new CategoryLegend(vm);
    this.headView = new HeadView(headVm);
    this.headPanel = new HeadPanel(vm);
    this.exports = new BackgroundJob(vm.worker(), vm::fail, "");
    VBox.setVgrow(grid, Priority.ALWAYS);
    ViewLoader.load(this, Map.of("grid", grid, "legend", legend, "headView", headView, "headPanel", headPanel,
        "predictions", new PredictionsView(vm.predictions())));
    center.setDividerPositions(0.47);
    right.setDividerPositions(0.6);
    lower.setDividerPositions(0.58);
    bindInputs();
    bindMapsToggle();
    bindStale();
    bindTokenStrip();
    bindStatusBar();
    addModelItems();

    vm.errorProperty().addListener((o, a, msg) -> {
      if (msg != null) {
        vm.acknowledgeError();
        dialogs.showError(msg);
      }
    });
  }

  public MainViewModel viewModel() {
    return vm;
  }

  public HeadViewModel headViewModel() {
    return headVm;
  }

  public ModelGridView grid() {
    return grid;
  }

  public HeadPanel headPanel() {
    return headPanel;
  }

  /** Adds a screen beside the grid (sweep, corpus). */
  public Tab addLeftTab(String title, String id, Node content) {
    Tab t = new Tab(title, content);
    t.setId(id);
    leftTabs.getTabs().add(t);
    return t;
  }

  public void showLeftTab(Tab t) {
    leftTabs.getSelectionModel().select(t);
  }

  /** The menu the analysis services (corpus, sweep) add their items to. */
  public Menu analysisMenu() {
    return analysisMenu;
  }

  public Menu exportMenu() {
    return exportMenu;
  }

  /** Replaces the error and question dialogs (tests answer them). */
  public void setDialogService(DialogService d) {
    dialogs = d;
  }

  public void setFileAsker(FileAsker f) {
    files = f;
  }

  public FileAsker files() {
    return files;
  }

  /**
   * The embedded models, above the folder and Hub items. One that is not built in can still be picked
   * when the injected repository has it converted already.
   */
  private void addModelItems() {
    int at = 0;
    for (ModelRepository.Embedded e : ModelRepository.Embedded.values()) {
      MenuItem item = new MenuItem(e.modelName + (e.isAvailable() ? "" : " (not installed)"));
      item.setDisable(!vm.canLoad(e));
      item.setOnAction(ev -> vm.loadModel(e.modelName));
      modelMenu.getItems().add(at++, item);
    }
  }

  @FXML
  private void openFolder() {
    Path p = files.openFolder("A Hugging Face BERT folder (config.json, model.safetensors, tokenizer.json or vocab.txt)");
    if (p != null) {
      vm.loadModel(p.toString());
    }
  }

  @FXML
  private void openHub() {
    dialogs.askText("Hugging Face Hub model",
        "A BERT on the Hugging Face Hub: owner/name, optionally @revision.\n"
        + "Downloaded once into the cache (safetensors only, SHA-256 checked); later starts need no network.",
        "Model id:", "textattack/bert-base-uncased-MRPC")
        .ifPresent(id -> vm.loadModel(id.startsWith("hf:") ? id : "hf:" + id));
  }

  @FXML
  private void showDefinitions() {
    dialogs.showText("What the numbers mean (docs/METHODS.md)", Help.definitions());
  }

  @FXML
  private void showShortcuts() {
    dialogs.showText("Mouse and keys", Help.SHORTCUTS);
  }

  @FXML
  private void showAbout() {
    dialogs.showText("About HeadScope", Help.about(vm.modelNameProperty().get()));
  }

  @FXML
  private void toggleSelectedHeads() {
    vm.toggleSelectedHeads();
  }

  @FXML
  private void switchAllOn() {
    vm.switchAllOn();
  }

  @FXML
  private void exportJson() {
    // the maps on screen: intact, or as run with the heads in "disabled" ("maps": "as-run")
    // over words when the words switch is on (as `attention --words`)
    boolean words = vm.session().wordsShown();
    export("Attention JSON", "json", "attention.json", vm.session()::shownTrace,
        (t, p) -> Exports.attentionJson(t, words, p));
  }

  /** Every head as a figure: the maps on screen (intact, as run or difference), category frames and legend. */
  @FXML
  private void exportGridFigure() {
    exportFigure("grid", () -> {
      AttentionTrace intact = vm.traceProperty().get();
      if (intact == null) {
        throw new io.headscope.model.core.HeadScopeException("Nothing to export yet: type a sentence first.");
      }
      AttentionTrace run = vm.ablatedProperty().get() == null ? intact : vm.ablatedProperty().get();
      MapsShown shown = vm.session().mapsShownProperty().get();
      int heads = intact.heads();
      java.util.List<io.headscope.analysis.heads.HeadScore> scores = java.util.List.copyOf(vm.scoresProperty());
      return GridFigure.of(intact, run, shown, vm.session().wordsShown(), run.mask(),
          scores.size() == intact.layers() * heads ? h -> scores.get(h.layer() * heads + h.head()).category() : null,
          caption(run, shown), Math.max(24, Math.min(96, 1152 / heads)));
    });
  }

  /** The head view as a figure: the map as shown (display, pair filter, maps), or its lines. */
  @FXML
  private void exportHeadFigure() {
    exportFigure(headView.showingLines() ? "lines" : "head", () -> {
      HeadMatrix m = headVm.matrixProperty().get();
      if (m == null) {
        throw new io.headscope.model.core.HeadScopeException("Nothing to export yet: type a sentence and pick a head.");
      }
      AttentionTrace run = vm.ablatedProperty().get() == null ? vm.traceProperty().get() : vm.ablatedProperty().get();
      Caption c = caption(run, m.maps());
      if (headView.showingLines()) {
        return LinesFigure.of(headView.wholeLayerShown() ? headVm.layerMatrices() : java.util.List.of(m), c);
      }
      int n = Math.max(m.rows(), m.cols());
      return HeadFigure.of(m, c, Math.max(1, Math.min(18, 1600.0 / n)));
    });
  }

  /** What a figure says about the maps it shows. */
  private Caption caption(AttentionTrace run, MapsShown shown) {
    String input = vm.textBProperty().get() == null || vm.textBProperty().get().isBlank() ? vm.textAProperty().get()
        : vm.textAProperty().get() + " ‖ " + vm.textBProperty().get();
    String maps = switch (shown) {
      case INTACT -> "intact";
      case AS_RUN -> "as run";
      case DIFFERENCE -> "difference as run − intact";
    };
    return new Caption(vm.modelNameProperty().get(), input, run == null ? HeadMask.NONE : run.mask(), maps);
  }

  /**
   * Asks for a PNG or SVG file and writes the figure made on the FX thread (a copy of the state) off it:
   * SVG by the name's extension, PNG at 300 dpi (less when that would pass the size limit).
   */
  public void exportFigure(String name, Supplier<Figure> figure) {
    Path p = files.save("Export figure (PNG at 300 dpi, or SVG)", java.util.List.of("png", "svg"), name + ".png");
    if (p == null) {
      return;
    }
    Figure f;
    try {
      f = figure.get();
    } catch (RuntimeException ex) {
      vm.fail(ex);
      return;
    }
    FigureFile.Format format = FigureFile.Format.of(p);
    double scale = Math.min(FigureFile.DPI_300, FigureFile.MAX_SIDE / Math.max(f.width(), f.height()));
    writeInBackground(p, () -> FigureFile.write(f, p, format, scale));
  }

  /**
   * Asks for a file, takes what goes in it on the FX thread (a copy of the state, a snapshot), then
   * writes it off the FX thread as a background job; a failure shows the dialog and leaves nothing
   * half-written (the writers replace the file atomically).
   */
  public <T> void export(String what, String ext, String name, Supplier<T> content, BiConsumer<T, Path> writer) {
    Path p = files.save("Export " + what, ext, name);
    if (p == null) {
      return;
    }
    T data;
    try {
      data = content.get();
    } catch (RuntimeException ex) {
      vm.fail(ex);
      return;
    }
    writeInBackground(p, () -> writer.accept(data, p));
  }

  private void writeInBackground(Path p, Runnable write) {
    boolean started = exports.start("Writing " + p + "…", -1, false, progress -> {
      write.run();
      return p;
    }, new BackgroundJob.Outcome<Path>() {
      @Override
      public String done(Path written) {
        vm.note("Wrote " + written);
        return "Wrote " + written;
      }

      @Override
      public String failed(Throwable error) {
        return "Could not write " + p;
      }

      @Override
      public String cancelled() {
        return "Not written: " + p;
      }
    });
    if (!started) {
      vm.note("An export is still being written; try again when it is done.");
    }
  }

  private void bindInputs() {
    textA.textProperty().bindBidirectional(vm.textAProperty());
    textB.textProperty().bindBidirectional(vm.textBProperty());
    PauseTransition pause = new PauseTransition(DEBOUNCE);
    pause.setOnFinished(e -> vm.analyse());
    textA.textProperty().addListener((o, x, y) -> pause.playFromStart());
    textB.textProperty().addListener((o, x, y) -> pause.playFromStart());
    for (TextField field : new TextField[] {textA, textB}) {
      field.setOnAction(e -> {
        pause.stop();
        vm.analyse();
      });
    }
    modeChoice.getItems().setAll(HeadMask.Mode.values());
    // the words of the CLI's --mode and of METHODS.md, not the enum's capitals
    modeChoice.setConverter(new javafx.util.StringConverter<>() {
      @Override
      public String toString(HeadMask.Mode m) {
        return m == null ? "" : m == HeadMask.Mode.ZERO ? "zero (× 0)" : "uniform (even rows)";
      }

      @Override
      public HeadMask.Mode fromString(String s) {
        return HeadMask.Mode.parse(s.split(" ")[0]);
      }
    });
    modeChoice.setValue(vm.maskProperty().get().mode());
    modeChoice.valueProperty().addListener((o, x, y) -> vm.setMode(y));
    vm.maskProperty().addListener((o, x, y) -> modeChoice.setValue(y.mode()));
    allOnButton.disableProperty().bind(vm.maskProperty().map(HeadMask::isEmpty));
    bindClassifierChoice();
  }

  /** Heads menu: learned model or threshold rule, one of the two always chosen. */
  private void bindClassifierChoice() {
    javafx.scene.control.ToggleGroup group = new javafx.scene.control.ToggleGroup();
    classifierLearned.setToggleGroup(group);
    classifierRule.setToggleGroup(group);
    classifierLearned.setUserData(io.headscope.analysis.heads.HeadClassifier.Method.LEARNED);
    classifierRule.setUserData(io.headscope.analysis.heads.HeadClassifier.Method.RULE);
    group.selectToggle(vm.methodProperty().get() == io.headscope.analysis.heads.HeadClassifier.Method.RULE
        ? classifierRule : classifierLearned);
    group.selectedToggleProperty().addListener((o, x, t) -> {
      if (t == null) {
        group.selectToggle(x); // a radio item clicked again stays chosen
      } else {
        vm.methodProperty().set((io.headscope.analysis.heads.HeadClassifier.Method) t.getUserData());
      }
    });
  }

  /** The token strip follows the shown input (the chips and the cut marker: {@link TokenStrip}). */
  private void bindTokenStrip() {
    vm.traceProperty().addListener((o, x, t) -> tokenStrip.show(t == null ? null : t.encoding()));
  }

  /** Intact | as run | difference: which maps the grid and the head view show. */
  private void bindMapsToggle() {
    javafx.scene.control.ToggleGroup group = new javafx.scene.control.ToggleGroup();
    for (MapsShown m : MapsShown.values()) {
      javafx.scene.control.ToggleButton b = new javafx.scene.control.ToggleButton(m.toString());
      b.setId("maps-" + m.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
      b.setUserData(m);
      b.setToggleGroup(group);
      b.setFocusTraversable(false);
      b.setTooltip(new Tooltip(switch (m) {
        case INTACT -> "The maps of the intact model (every head on).";
        case AS_RUN -> "The maps as the model ran them with the switched-off heads: layers above a head "
            + "that is off attend differently; a head that is off shows what flowed on.";
        case DIFFERENCE -> "As run − intact, on a diverging scale: where switching heads off moved attention.";
      }));
      mapsToggle.getChildren().add(b);
      if (m == vm.session().mapsShownProperty().get()) {
        b.setSelected(true);
      }
    }
    group.selectedToggleProperty().addListener((o, a, b) -> {
      if (b == null) {
        a.setSelected(true); // one of the three is always chosen
      } else {
        vm.session().mapsShownProperty().set((MapsShown) b.getUserData());
      }
    });
    vm.session().mapsShownProperty().addListener((o, a, b) -> group.getToggles().forEach(t ->
        t.setSelected(t.getUserData() == b)));
  }

  /**
   * While a new input is analysed the old result stays, marked (faded, and the status says so); the
   * input row says how the text was read (cut, [mask], [UNK]).
   */
  private void bindStale() {
    vm.staleProperty().addListener((o, a, b) -> center.pseudoClassStateChanged(States.STALE, b));
    // the maps of the previous input fade: the images themselves, not their containers (opacity on a
    // container of 2,000 nodes makes every frame render it offscreen first)
    vm.staleProperty().addListener((o, a, b) -> {
      grid.setFaded(b ? STALE_OPACITY : 1);
      headView.setFaded(b ? STALE_OPACITY : 1);
    });
    inputNote.textProperty().bind(vm.inputNoteProperty());
    inputNote.visibleProperty().bind(vm.inputNoteProperty().isNotEmpty());
    inputNote.managedProperty().bind(inputNote.visibleProperty());
    vm.inputNoteProperty().addListener((o, a, b) -> textA.pseudoClassStateChanged(States.TRUNCATED, b.startsWith("✂")));
  }

  private void bindStatusBar() {
    progress.progressProperty().bind(vm.progressProperty());
    progress.visibleProperty().bind(vm.busyProperty());
    status.textProperty().bind(vm.statusProperty());
    modelLabel.textProperty().bind(vm.modelNameProperty());
  }

  /** For tests: the trace shown. */
  AttentionTrace trace() {
    return vm.traceProperty().get();
  }

  Head selected() {
    return vm.selectedProperty().get();
  }
}
