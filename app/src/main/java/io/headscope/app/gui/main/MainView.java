package io.headscope.app.gui.main;

import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.dialog.FxDialogService;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.fxml.ViewLoader;
import io.headscope.app.gui.head.HeadView;
import io.headscope.app.gui.head.HeadViewModel;
import io.headscope.app.gui.main.grid.CategoryLegend;
import io.headscope.app.gui.main.grid.ModelGridView;
import io.headscope.app.gui.predict.PredictionsView;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.Screen;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.Sources;
import io.headscope.app.gui.style.States;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.MapsShown;
import io.headscope.app.render.figure.Caption;
import io.headscope.app.render.figure.GridFigure;
import io.headscope.app.render.figure.HeadFigure;
import io.headscope.app.render.figure.LinesFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Path;
import java.util.Map;
import javafx.animation.PauseTransition;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.SplitPane;
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
  /** Errors, questions, file choosers and exports, for the window and every screen. */
  private final FxDialogService dialogs;
  private final ScreenNav nav;
  @FXML private Menu modelMenu;
  @FXML private Menu analysisMenu;
  @FXML private Menu exportMenu;
  @FXML private MenuItem undoItem;
  @FXML private javafx.scene.control.CheckMenuItem plainFigures;
  @FXML private MenuItem redoItem;
  @FXML private Menu headSetsMenu;
  @FXML private TextField textA;
  @FXML private TextField textB;
  @FXML private ChoiceBox<HeadMask.Mode> modeChoice;
  @FXML private javafx.scene.control.RadioMenuItem classifierLearned;
  @FXML private javafx.scene.control.RadioMenuItem classifierRule;
  @FXML private Button allOnButton;
  @FXML private HBox mapsToggle;
  @FXML private Label inputNote;
  @FXML private Label textALabel;
  @FXML private Label textBLabel;
  @FXML private HBox kindRow;
  @FXML private HBox kindToggle;
  @FXML private Label kindNote;
  @FXML private TokenStrip tokenStrip;
  @FXML private javafx.scene.layout.BorderPane leftPane;
  @FXML private VBox allHeads;
  @FXML private SplitPane center;
  @FXML private SplitPane right;
  @FXML private SplitPane lower;
  @FXML private Label modelLabel;
  @FXML private ProgressBar progress;
  @FXML private Label status;

  public MainView(MainViewModel vm) {
    this.vm = vm;
    this.headVm = new HeadViewModel(vm.session());
    this.grid = new ModelGridView(vm);
    this.legend = new CategoryLegend(vm);
    this.headView = new HeadView(headVm);
    this.headPanel = new HeadPanel(vm);
    // exports are written off the FX thread one at a time
    this.dialogs = new FxDialogService(() -> getScene() == null ? null : getScene().getWindow(),
        new BackgroundJob(vm.worker(), vm::fail, ""), vm::fail, vm::note);
    VBox.setVgrow(grid, Priority.ALWAYS);
    ViewLoader.load(this, Map.of("grid", grid, "legend", legend, "rank", new io.headscope.app.gui.main.rank.RankBar(
        vm.rank()), "headView", headView, "headPanel", headPanel, "predictions", new PredictionsView(vm.predictions())));
    grid.showRanks(vm.rank().ranksProperty());
    // the navigation and the 12 x 12 grid on the left; on the right the head view over the head panel
    // and the predictions, both tall enough at 1280 x 800 for what they say
    center.setDividerPositions(0.49);
    right.setDividerPositions(0.54);
    lower.setDividerPositions(0.57);
    // on a tall screen the panels under the head view need no more than they have at 800 px: the head view
    // takes the rest (at 1920x1080 its heatmap was about 230 px tall and a 512-token map needed zooming); set
    // once, when the window first has its height, so a divider the person moves stays where they put it
    right.heightProperty().addListener(new javafx.beans.value.ChangeListener<>() {
      @Override
      public void changed(javafx.beans.value.ObservableValue<? extends Number> o, Number a, Number h) {
        if (h.doubleValue() > 0) {
          right.heightProperty().removeListener(this);
          right.setDividerPositions(headViewShare(h.doubleValue()));
        }
      }
    });
    dialogs.setPlainFigures(plainFigures::isSelected);
    bindInputs();
    bindMapsToggle();
    bindEncoderDecoder();
    bindStale();
    bindTokenStrip();
    bindStatusBar();
    addModelItems();
    nav = new ScreenNav();
    leftPane.setCenter(nav.content());
    leftPane.setLeft(nav.column());
    nav.add("Heads", "All heads", "grid", "Every head's map at once, framed by its category", allHeads);
    addMainExports();
    bindSwitchHistory();
    nav.onShow(vm::screenChanged);

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

  /**
   * Builds the screens of the list and lists them in the navigation, the Analysis menu and the Export
   * menu, in the list's order. The window knows them only by their descriptors.
   */
  public void install(java.util.List<ScreenDescriptor> screens) {
    ScreenContext context = new ScreenContext(vm.session(), dialogs, new Sources(), vm.repository(),
        vm.loadableModels(), vm.scoresProperty());
    String group = null;
    for (ScreenDescriptor d : screens) {
      Screen s = d.create().apply(context);
      nav.add(d.group(), d.title(), d.id(), d.tooltip(), s.view());
      if (group != null && !group.equals(d.group())) {
        analysisMenu.getItems().add(new javafx.scene.control.SeparatorMenuItem());
      }
      group = d.group();
      MenuItem show = new MenuItem(d.menuText());
      show.setId("menu-" + d.id());
      show.setOnAction(e -> {
        nav.show(d.id());
        s.onMenu();
      });
      analysisMenu.getItems().add(show);
      if (!s.exports().isEmpty()) {
        exportMenu.getItems().add(new javafx.scene.control.SeparatorMenuItem());
      }
      for (ExportItem x : s.exports()) {
        MenuItem item = new MenuItem(x.text());
        item.setId(x.id());
        item.setOnAction(e -> x.action().run());
        item.disableProperty().bind(x.disabled());
        exportMenu.getItems().add(item);
      }
    }
    nav.installKeys(this);
  }

  /**
   * The head view's share of the right-hand column of this height: 0.54 at 1280x800 (the panels below need
   * about 310 px), and above that the panels keep about 340 px and the head view takes the rest, up to 0.7.
   */
  static double headViewShare(double height) {
    return Math.max(0.54, Math.min(0.7, (height - 340) / height));
  }

  /** Shows a screen by its id ({@code grid}, {@code sweep}, …). */
  public void showScreen(String id) {
    nav.show(id);
  }

  /** The id of the screen shown. */
  public String shownScreen() {
    return nav.shown();
  }

  /** The main window's own exports beside the attention JSON: the sentence's classification, token types. */
  private void addMainExports() {
    MenuItem sentenceCsv = new MenuItem("Head classification CSV (this sentence)…");
    sentenceCsv.setId("export-classify-sentence");
    sentenceCsv.setOnAction(e -> dialogs.export("head classification CSV", "csv", "classify.csv",
        () -> Exports.oneInput(classifiedHeads(), vm.classifier()),
        Exports::classificationCsv));
    sentenceCsv.disableProperty().bind(vm.traceProperty().isNull());
    MenuItem layerPng = new MenuItem("Token types per layer as figure (PNG 300 dpi or SVG)…");
    layerPng.setOnAction(e -> dialogs.exportFigure("token-types", this::tokenTypeFigure));
    MenuItem page = new MenuItem("Interactive page (HTML)…");
    page.setId("export-page");
    page.setOnAction(e -> exportPage());
    page.disableProperty().bind(vm.traceProperty().isNull());
    exportMenu.getItems().addAll(new javafx.scene.control.SeparatorMenuItem(), sentenceCsv, layerPng,
        new javafx.scene.control.SeparatorMenuItem(), page);
  }

  /**
   * The heads' categories for the classification CSV; where the model gets none (an encoder-decoder, a causal
   * model) one line says why and nothing is written, instead of a CSV of its header alone.
   */
  private java.util.List<io.headscope.analysis.heads.HeadScore> classifiedHeads() {
    java.util.List<io.headscope.analysis.heads.HeadScore> scores = java.util.List.copyOf(vm.scoresProperty());
    io.headscope.app.gui.session.TwoStacks two = vm.session().twoStacks();
    if (two != null) {
      throw new io.headscope.model.core.HeadScopeException("No head classification CSV for " + two.model().name()
          + ": the categories are defined on one stack's bidirectional maps, and a " + two.family()
          + " encoder-decoder's encoder, decoder and cross maps get none (Export › Attention JSON has its maps).");
    }
    io.headscope.model.BertModel m = vm.modelProperty().get();
    if (scores.isEmpty() && m != null && !io.headscope.analysis.heads.HeadClassifier.appliesTo(m)) {
      throw new io.headscope.model.core.HeadScopeException("No head classification CSV for " + m.name()
          + ": it attends causally, and the categories are defined on bidirectional maps.");
    }
    return scores;
  }

  /**
   * The current sentence with the heads switched off now, as the page {@code headscope html} writes: made on the
   * model's worker (the model runs one call at a time), then the file is asked for and written.
   */
  private void exportPage() {
    io.headscope.app.gui.session.TwoStacks two = vm.session().twoStacks();
    if (two != null) {
      // an encoder-decoder: the page `html --target` writes (its encoder / decoder / cross chooser), as run
      if (two.asRun() == null) {
        dialogs.showError("Nothing to export yet: type a source and a target first.");
        return;
      }
      io.headscope.analysis.heads.HeadClassifier c = vm.classifier();
      vm.worker().submit(p -> io.headscope.app.render.page.ArrayPage.of(two.asRun(), c).html(two.model().name()),
          html -> dialogs.export("interactive page (HTML)", "html", "headscope.html", () -> html, Exports::interactivePage),
          vm.session()::fail);
      return;
    }
    io.headscope.model.BertModel m = vm.session().model();
    if (m == null || vm.traceProperty().get() == null) {
      dialogs.showError("Nothing to export yet: type a sentence first.");
      return;
    }
    String[] input = vm.session().inputText();
    String pair = input[1] == null || input[1].isBlank() ? null : input[1];
    io.headscope.model.core.HeadMask mask = vm.session().mask();
    io.headscope.analysis.heads.HeadClassifier classifier = vm.classifier();
    io.headscope.app.render.MapsShown shown = vm.session().mapsShownProperty().get();
    Head focus = vm.selectedProperty().get(); // the page's neuron view opens on the head shown here
    vm.worker().submit(p -> io.headscope.app.render.page.InteractivePage.html(
            io.headscope.app.render.page.PageData.build(m, input[0], pair, mask, classifier).opening(shown)
                .focusing(focus)),
        html -> dialogs.export("interactive page (HTML)", "html", "headscope.html", () -> html, Exports::interactivePage),
        vm.session()::fail);
  }

  /**
   * Clark et al.'s token types per layer as a figure: rows are layers, columns the share of attention
   * to [CLS], [SEP], punctuation and other tokens, weights beside norm-weighted.
   */
  private io.headscope.app.render.figure.Figure tokenTypeFigure() {
    var layers = java.util.List.copyOf(headPanel.facts().viewModel().layersProperty());
    if (layers.isEmpty()) {
      throw new io.headscope.model.core.HeadScopeException("Nothing to export yet: type a sentence first.");
    }
    java.util.List<String> rows = new java.util.ArrayList<>();
    if (layers.get(0).norm() == null) {
      // where no categories are given (a causal model, an encoder-decoder): the first token's share (the attention
      // sink; on cross maps the source's first token), the end token's (an encoder-decoder's </s>) where the keys
      // have one, punctuation's and the rest's, weights only
      io.headscope.app.render.TokenTypeNames names = headPanel.facts().viewModel().chartNames();
      boolean end = names.sep() != null;
      double[][] v = new double[layers.size()][];
      for (int l = 0; l < layers.size(); l++) {
        var w = layers.get(l).weight();
        v[l] = end ? new double[] {w.cls(), w.sep(), w.punct(), w.other()} : new double[] {w.cls(), w.punct(), w.other()};
        rows.add("L" + (layers.get(l).layer() + 1));
      }
      io.headscope.app.gui.session.TwoStacks two = vm.session().twoStacks();
      String kind = two == null ? "" : " · " + EncoderDecoderRuns.describe(two.kind());
      java.util.List<String> columns = new java.util.ArrayList<>(java.util.List.of(names.cls()));
      if (end) {
        columns.add(names.sep());
      }
      columns.addAll(java.util.List.of("punct. weight", "other weight"));
      return io.headscope.app.render.figure.MatrixFigure.of(vm.modelNameProperty().get()
          + " · attention to token types per layer" + kind,
          java.util.List.of("mean over the layer's heads and the query tokens of the weight on the "
              + (two != null && two.kind() == io.headscope.model.core.AttentionKind.CROSS ? "source's first token"
                  : "first token (the attention sink)") + (end ? ", " + names.sep() : "") + ", punctuation and the rest"),
          inputLine(), rows, columns, v, false, "share of attention", 44, true);
    }
    double[][] v = new double[layers.size()][8];
    for (int l = 0; l < layers.size(); l++) {
      var w = layers.get(l).weight();
      var n = layers.get(l).norm();
      v[l] = new double[] {w.cls(), w.sep(), w.punct(), w.other(), n.cls(), n.sep(), n.punct(), n.other()};
      rows.add("L" + (layers.get(l).layer() + 1));
    }
    return io.headscope.app.render.figure.MatrixFigure.of(vm.modelNameProperty().get()
        + " · attention to token types per layer",
        java.util.List.of("mean over the layer's heads and the query tokens (Clark et al. 2019); weights, then "
            + "norm-weighted (Kobayashi)"),
        inputLine(), rows, tokenTypeColumns(io.headscope.app.render.TokenTypeNames.of(vm.modelProperty().get())), v,
        false, "share of attention", 44, true);
  }

  /** The token-type figure's columns, the special tokens named as the model names them ({@code <s>} on RoBERTa). */
  public static java.util.List<String> tokenTypeColumns(io.headscope.app.render.TokenTypeNames names) {
    return java.util.List.of(names.cls() + " weight", names.sep() + " weight", "punct. weight", "other weight",
        names.cls() + " norm", names.sep() + " norm", "punct. norm", "other norm");
  }

  /** The input as figures name it: the sentence, or the pair joined by ‖. */
  private String inputLine() {
    String a = vm.textAProperty().get();
    String b = vm.textBProperty().get();
    return b == null || b.isBlank() ? a : a + " ‖ " + b;
  }

  /** The menu the screens add their items to. */
  public Menu analysisMenu() {
    return analysisMenu;
  }

  public Menu exportMenu() {
    return exportMenu;
  }

  /** Replaces the file choosers (UI tests answer them with fixed paths). */
  public void setFileAsker(FileAsker f) {
    dialogs.setFileAsker(f);
  }

  public FileAsker files() {
    return dialogs.files();
  }

  /**
   * The embedded models, above the folder and Hub items. One that is not built in can still be picked
   * when the injected repository has it converted already.
   */
  /**
   * The Model menu's models, listed afresh each time it opens: the built-in ones (one this install lacks
   * says how to get it instead of loading), then the Hugging Face models downloaded before, which load
   * offline; then the menu's own items (a folder, the Hub).
   */
  private void addModelItems() {
    java.util.List<MenuItem> fixed = java.util.List.copyOf(modelMenu.getItems());
    Runnable list = () -> {
      java.util.List<MenuItem> items = new java.util.ArrayList<>();
      for (ModelRepository.Embedded e : ModelRepository.Embedded.values()) {
        boolean here = vm.canLoad(e);
        MenuItem item = new MenuItem(e.modelName + (here ? "" : " (not installed: how to get it…)"));
        item.setId("model-" + e.modelName);
        item.setOnAction(ev -> {
          if (here) {
            vm.loadModel(e.modelName);
          } else {
            dialogs.showMarkdown("How to get " + e.modelName, MainViewModel.howToGet(e));
          }
        });
        items.add(item);
      }
      java.util.List<String> downloaded = vm.repository().cachedHubModels();
      if (!downloaded.isEmpty()) {
        items.add(new javafx.scene.control.SeparatorMenuItem());
        for (String spec : downloaded) {
          MenuItem item = new MenuItem(spec + " (downloaded)");
          item.setId("model-" + spec);
          item.setOnAction(ev -> vm.loadModel(spec));
          items.add(item);
        }
      }
      items.addAll(fixed);
      // replaced only when something changed: items swapped while the menu opens would lose the click
      java.util.List<String> was = modelMenu.getItems().stream().map(MenuItem::getText).toList();
      if (!was.equals(items.stream().map(MenuItem::getText).toList())) {
        modelMenu.getItems().setAll(items);
      }
    };
    list.run();
    modelMenu.setOnShowing(e -> list.run());
  }

  @FXML
  private void openFolder() {
    Path p = dialogs.openFolder(
        "A Hugging Face model folder: BERT, RoBERTa, XLM-R, DistilBERT, ELECTRA, ALBERT, GPT-2, T5 or BART (config.json, "
            + "model.safetensors, and tokenizer.json, vocab.json + merges.txt or vocab.txt)");
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
    dialogs.showMarkdown("What the numbers mean (docs/METHODS.md)", Help.definitions());
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

  /**
   * Undo and redo name the change ("Undo switch 8-7 off"). Ctrl+Y redoes too (Windows habit); in a
   * text field Ctrl+Z stays the field's own undo of typing.
   */
  private void bindSwitchHistory() {
    undoItem.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(
        () -> vm.undoNameProperty().get().isEmpty() ? "Undo" : "Undo " + vm.undoNameProperty().get(), vm.undoNameProperty()));
    redoItem.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(
        () -> vm.redoNameProperty().get().isEmpty() ? "Redo" : "Redo " + vm.redoNameProperty().get(), vm.redoNameProperty()));
    undoItem.disableProperty().bind(vm.undoNameProperty().isEmpty());
    redoItem.disableProperty().bind(vm.redoNameProperty().isEmpty());
    sceneProperty().addListener((o, a, scene) -> {
      if (scene != null) {
        scene.getAccelerators().put(new javafx.scene.input.KeyCodeCombination(javafx.scene.input.KeyCode.Y,
            javafx.scene.input.KeyCombination.SHORTCUT_DOWN), vm::redo);
      }
    });
    // the sets are read when the menu opens, so a set saved by another window or by hand shows
    headSetsMenu.setOnShowing(e -> fillHeadSets());
    fillHeadSets();
  }

  private void fillHeadSets() {
    headSetsMenu.getItems().clear();
    vm.headSets().forEach((name, heads) -> {
      MenuItem item = new MenuItem(name + ": " + heads);
      item.setId("head-set-" + name);
      item.setOnAction(e -> vm.applyHeadSet(name));
      headSetsMenu.getItems().add(item);
    });
    if (headSetsMenu.getItems().isEmpty()) {
      MenuItem none = new MenuItem("(none saved yet)");
      none.setDisable(true);
      headSetsMenu.getItems().add(none);
    }
  }

  @FXML
  private void undoSwitch() {
    vm.undo();
  }

  @FXML
  private void redoSwitch() {
    vm.redo();
  }

  @FXML
  private void saveHeadSet() {
    if (vm.maskProperty().get().isEmpty()) {
      vm.note("No head is switched off: switch some off first, then save them as a set.");
      return;
    }
    javafx.scene.control.TextInputDialog ask = new javafx.scene.control.TextInputDialog();
    ask.setTitle("Save head set");
    ask.setHeaderText("Name the " + vm.maskProperty().get().off().size() + " heads switched off (e.g. gender).\n"
        + "Kept in " + vm.headSetsFile() + "; the CLI reads it: --disable @NAME");
    if (getScene() != null) {
      ask.initOwner(getScene().getWindow());
    }
    ask.showAndWait().filter(n -> !n.isBlank()).ifPresent(vm::saveHeadSet);
  }

  @FXML
  private void exportJson() {
    // the maps on screen: intact, or as run with the heads in "disabled" ("maps": "as-run")
    // over words when the words switch is on (as `attention --words`)
    boolean words = vm.session().wordsShown();
    io.headscope.app.gui.session.TwoStacks two = vm.session().twoStacks();
    if (two != null) {
      // an encoder-decoder: the three kinds, as `attention --target` prints them (the maps as run with the switches)
      dialogs.export("Attention JSON", "json", "attention.json", () -> {
        if (two.asRun() == null) {
          throw new io.headscope.model.core.HeadScopeException("Nothing to export yet: type a source and a target first.");
        }
        return two.asRun();
      }, (t, p) -> io.headscope.model.store.SafeFiles.writeAtomically(p, true,
          out -> io.headscope.analysis.export.EncoderDecoderJson.attention(t, out)));
      return;
    }
    dialogs.export("Attention JSON", "json", "attention.json", vm.session()::shownTrace,
        (t, p) -> Exports.attentionJson(t, words, p));
  }

  /** Every head as a figure: the maps on screen (intact, as run or difference), category frames and legend. */
  @FXML
  private void exportGridFigure() {
    dialogs.exportFigure("grid", () -> {
      AttentionTrace intact = vm.traceProperty().get();
      if (intact == null) {
        throw new io.headscope.model.core.HeadScopeException("Nothing to export yet: type a sentence first.");
      }
      AttentionTrace run = vm.ablatedProperty().get() == null ? intact : vm.ablatedProperty().get();
      MapsShown shown = vm.session().mapsShownProperty().get();
      int heads = intact.heads();
      java.util.List<io.headscope.analysis.heads.HeadScore> scores = java.util.List.copyOf(vm.scoresProperty());
      // the frames name the classifier that coloured the grid (learned or rule), uncertain heads counted grey
      return GridFigure.of(intact, run, shown, vm.session().wordsShown(), run.mask(),
          scores.size() == intact.layers() * heads ? GridFigure.Frames.of(vm.classifier().method(), scores, heads) : null,
          caption(run, shown), Math.max(24, Math.min(96, 1152 / heads)));
    });
  }

  /** The head view as a figure: the map as shown (display, pair filter, maps), or its lines. */
  @FXML
  private void exportHeadFigure() {
    dialogs.exportFigure(headView.showingLines() ? "lines" : "head", () -> {
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
    String input = inputLine();
    String maps = switch (shown) {
      case INTACT -> "intact";
      case AS_RUN -> "as run";
      case DIFFERENCE -> "difference as run − intact";
    };
    return new Caption(vm.modelNameProperty().get(), input, run == null ? HeadMask.NONE : run.mask(), maps);
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

  /**
   * An encoder-decoder (T5, BART): the input row reads Source and Target, and the row under it chooses the kind
   * of maps the grid and the head view show (encoder, decoder, cross), as BertViz's head and model views do.
   */
  private void bindEncoderDecoder() {
    String promptA = textA.getPromptText();
    String promptB = textB.getPromptText();
    javafx.scene.control.ToggleGroup group = new javafx.scene.control.ToggleGroup();
    EncoderDecoderRuns runs = vm.encoderDecoder();
    for (io.headscope.model.core.AttentionKind k : io.headscope.model.core.AttentionKind.values()) {
      javafx.scene.control.ToggleButton b = new javafx.scene.control.ToggleButton(switch (k) {
        case ENCODER -> "Encoder (source × source)";
        case DECODER -> "Decoder (target × target)";
        case CROSS -> "Cross (target → source)";
      });
      b.setId("kind-" + k.label);
      b.setUserData(k);
      b.setToggleGroup(group);
      b.setFocusTraversable(false);
      b.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
      b.setTooltip(new Tooltip(EncoderDecoderRuns.describe(k)));
      b.setSelected(k == runs.kindProperty().get());
      kindToggle.getChildren().add(b);
    }
    group.selectedToggleProperty().addListener((o, a, b) -> {
      if (b == null) {
        a.setSelected(true); // one kind is always shown
      } else {
        runs.setKind((io.headscope.model.core.AttentionKind) b.getUserData());
      }
    });
    runs.kindProperty().addListener((o, a, k) -> group.getToggles().forEach(t -> t.setSelected(t.getUserData() == k)));
    kindNote.textProperty().bind(runs.kindProperty().map(k -> switch (k) {
      case ENCODER -> "each source token attends to every source token";
      case DECODER -> "each target token attends to itself and the target tokens before it (hatched: not seen)";
      case CROSS -> "rows: target tokens (queries), columns: source tokens (keys)";
    }));
    Runnable follow = () -> {
      boolean two = vm.session().twoStacks() != null;
      kindRow.setVisible(two);
      kindRow.setManaged(two);
      textALabel.setText(two ? "Source" : "Sentence");
      textBLabel.setText(two ? "Target" : "Pair");
      textA.setPromptText(two ? "What the encoder reads, e.g. translate English to German: The house is wonderful."
          : promptA);
      boolean pairs = two || vm.pairReadProperty().get();
      textB.setDisable(!pairs);
      textB.setPromptText(two ? "What the decoder reads, e.g. Das Haus ist"
          : pairs ? promptB : "a causal model reads one text: no pair");
    };
    vm.session().twoStacksProperty().addListener((o, a, b) -> follow.run());
    vm.pairReadProperty().addListener((o, a, b) -> follow.run());
    follow.run();
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
