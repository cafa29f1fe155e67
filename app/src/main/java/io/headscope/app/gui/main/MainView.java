package io.headscope.app.gui.main;

import io.headscope.app.gui.style.States;
import io.headscope.app.gui.style.Theme;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.grid.CategoryLegend;
import io.headscope.app.gui.grid.ModelGridView;
import io.headscope.app.gui.head.HeadView;
import io.headscope.app.gui.head.HeadViewModel;
import io.headscope.app.gui.predict.PredictionsView;
import io.headscope.app.render.PngFiles;
import io.headscope.model.AttentionTrace;
import io.headscope.model.Head;
import io.headscope.model.HeadMask;
import io.headscope.model.store.ModelRepository;
import java.nio.file.Path;
import java.util.function.Supplier;
import javafx.animation.PauseTransition;
import javafx.embed.swing.SwingFXUtils;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.SnapshotParameters;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextField;
import javafx.scene.control.TextInputDialog;
import javafx.scene.control.Tooltip;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.Duration;

/** The main window's content: menus, input, token strip, model grid, head view, panels, status bar. */
public final class MainView extends BorderPane {
  /** Typing pauses this long before the model runs, so it runs once per pause, not per key. */
  static final Duration DEBOUNCE = Duration.millis(350);

  private final MainViewModel vm;
  private final HeadViewModel headVm;
  private final ModelGridView grid;
  private final HeadView headView;
  private final HeadPanel headPanel;
  private FileAsker files;
  private final Menu analysisMenu = new Menu("Analysis");
  private final CategoryLegend legend;
  private final TabPane leftTabs = new TabPane();
  private final Menu exportMenu = new Menu("Export");

  public MainView(MainViewModel vm, FileAsker files) {
    this.vm = vm;
    this.files = files;
    this.headVm = new HeadViewModel(vm.traceProperty(), vm.selectedProperty());
    this.grid = new ModelGridView(vm);
    this.legend = new CategoryLegend(vm);
    this.headView = new HeadView(headVm);
    this.headPanel = new HeadPanel(vm);

    VBox top = new VBox(menus(), inputs(), tokenStrip());
    setTop(top);

    SplitPane right = new SplitPane();
    right.setOrientation(Orientation.VERTICAL);
    SplitPane lower = new SplitPane(headPanel, new PredictionsView(vm));
    lower.setDividerPositions(0.58);
    right.getItems().addAll(headView, lower);
    right.setDividerPositions(0.6);

    VBox gridBox = new VBox(4, gridHeader(), grid);
    VBox.setVgrow(grid, Priority.ALWAYS);
    gridBox.setPadding(new Insets(2, 4, 2, 4));
    Tab gridTab = new Tab("All heads", gridBox);
    gridTab.setId("tab-grid");
    leftTabs.getTabs().add(gridTab);
    leftTabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    SplitPane center = new SplitPane(leftTabs, right);
    center.setDividerPositions(0.47);
    setCenter(center);
    setBottom(statusBar());

    vm.errorProperty().addListener((o, a, msg) -> {
      if (msg != null) {
        vm.acknowledgeError();
        Alert alert = new Alert(Alert.AlertType.ERROR, msg);
        alert.setHeaderText("HeadScope could not do that");
        alert.setTitle("HeadScope");
        Theme.apply(alert);
        if (getScene() != null) {
          alert.initOwner(getScene().getWindow());
        }
        alert.show();
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

  public void setFileAsker(FileAsker f) {
    files = f;
  }

  public FileAsker files() {
    return files;
  }

  private MenuBar menus() {
    Menu model = new Menu("Model");
    for (ModelRepository.Embedded e : ModelRepository.Embedded.values()) {
      MenuItem item = new MenuItem(e.modelName + (e.isAvailable() ? "" : " (not installed)"));
      item.setDisable(!e.isAvailable() && !ModelRepository.standard().cacheRoot()
          .resolve("models-v1").resolve(e.modelName).toFile().isDirectory());
      item.setOnAction(ev -> vm.loadModel(e.modelName));
      model.getItems().add(item);
    }
    MenuItem folder = new MenuItem("Open Hugging Face folder…");
    folder.setId("open-folder");
    folder.setOnAction(e -> {
      Path p = files.openFolder("A Hugging Face BERT folder (config.json, model.safetensors, tokenizer.json or vocab.txt)");
      if (p != null) {
        vm.loadModel(p.toString());
      }
    });
    MenuItem hub = new MenuItem("Hugging Face Hub model…");
    hub.setId("open-hub");
    hub.setOnAction(e -> {
      TextInputDialog ask = new TextInputDialog("textattack/bert-base-uncased-MRPC");
      ask.setTitle("Hugging Face Hub model");
      Theme.apply(ask);
      ask.setHeaderText("A BERT on the Hugging Face Hub: owner/name, optionally @revision.\n"
          + "Downloaded once into the cache (safetensors only, SHA-256 checked); later starts need no network.");
      ask.setContentText("Model id:");
      ask.showAndWait().map(String::strip).filter(id -> !id.isEmpty())
          .ifPresent(id -> vm.loadModel(id.startsWith("hf:") ? id : "hf:" + id));
    });
    model.getItems().addAll(new SeparatorMenuItem(), folder, hub);

    MenuItem json = new MenuItem("Attention JSON…");
    json.setId("export-json");
    json.setOnAction(e -> export("Attention JSON", "json", "attention.json",
        p -> Exports.attentionJson(vm.traceProperty().get(), p)));
    MenuItem gridPng = new MenuItem("Grid as PNG…");
    // the legend goes above the grid in the picture too: the frame colours mean nothing without it
    gridPng.setOnAction(e -> export("PNG", "png", "grid.png", p -> PngFiles.write(
        PngFiles.stacked(snapshot(legend), snapshot(grid.gridNode())), p)));
    MenuItem headPng = new MenuItem("Head view as PNG…");
    headPng.setOnAction(e -> exportPng("head.png", () -> headView.showingLines() ? headView.linesNode() : headView.heatmapNode()));
    exportMenu.getItems().addAll(json, gridPng, headPng);

    Menu heads = new Menu("Heads");
    MenuItem toggle = new MenuItem("Switch picked heads off/on (X)");
    toggle.setOnAction(e -> vm.toggleSelectedHeads());
    MenuItem allOn = new MenuItem("All heads on");
    allOn.setOnAction(e -> vm.switchAllOn());
    heads.getItems().addAll(toggle, allOn);
    MenuBar bar = new MenuBar(model, heads, analysisMenu, exportMenu);
    return bar;
  }

  /** Asks for a file and writes it; a failure shows the dialog and leaves nothing half-written. */
  public void export(String what, String ext, String name, java.util.function.Consumer<Path> writer) {
    Path p = files.save("Export " + what, ext, name);
    if (p == null) {
      return;
    }
    try {
      writer.accept(p);
      vm.note("Wrote " + p);
    } catch (RuntimeException ex) {
      vm.fail(ex);
    }
  }

  /** Snapshots a node into a PNG (through javafx-swing's SwingFXUtils and ImageIO). */
  public void exportPng(String name, Supplier<Node> node) {
    export("PNG", "png", name, p -> PngFiles.write(snapshot(node.get()), p));
  }

  private static java.awt.image.BufferedImage snapshot(Node node) {
    WritableImage img = node.snapshot(new SnapshotParameters(), null);
    return SwingFXUtils.fromFXImage(img, null);
  }

  private Node inputs() {
    TextField a = new TextField();
    a.setId("text-a");
    a.setPromptText("Type a sentence, e.g. The cat sat on the [MASK] because it was tired.");
    a.textProperty().bindBidirectional(vm.textAProperty());
    TextField b = new TextField();
    b.setId("text-b");
    b.setPromptText("Optional second sentence (pair)");
    b.textProperty().bindBidirectional(vm.textBProperty());
    PauseTransition pause = new PauseTransition(DEBOUNCE);
    pause.setOnFinished(e -> vm.analyse());
    a.textProperty().addListener((o, x, y) -> pause.playFromStart());
    b.textProperty().addListener((o, x, y) -> pause.playFromStart());
    a.setOnAction(e -> {
      pause.stop();
      vm.analyse();
    });
    b.setOnAction(e -> {
      pause.stop();
      vm.analyse();
    });
    HBox.setHgrow(a, Priority.ALWAYS);
    b.setPrefWidth(300);
    ChoiceBox<HeadMask.Mode> mode = new ChoiceBox<>();
    mode.setId("mode-choice");
    mode.getItems().setAll(HeadMask.Mode.values());
    mode.setValue(vm.maskProperty().get().mode());
    mode.setTooltip(new Tooltip("How a switched-off head is removed: ZERO multiplies its attention by 0 "
        + "(Hugging Face head_mask); UNIFORM replaces it by 1/n (Kovaleva)."));
    mode.valueProperty().addListener((o, x, y) -> vm.setMode(y));
    vm.maskProperty().addListener((o, x, y) -> mode.setValue(y.mode()));
    Button allOn = new Button("All heads on");
    allOn.setId("all-on");
    allOn.setOnAction(e -> vm.switchAllOn());
    allOn.disableProperty().bind(vm.maskProperty().map(HeadMask::isEmpty));
    HBox row = new HBox(6, new Label("Sentence"), a, new Label("Pair"), b, new Label("Off mode"), mode, allOn);
    row.setAlignment(Pos.CENTER_LEFT);
    row.setPadding(new Insets(6, 6, 2, 6));
    return row;
  }

  private Node tokenStrip() {
    FlowPane strip = new FlowPane(3, 3);
    strip.setId("token-strip");
    strip.setPadding(new Insets(2, 6, 4, 6));
    ScrollPane scroll = new ScrollPane(strip);
    scroll.setFitToWidth(true);
    scroll.setPrefViewportHeight(26);
    scroll.setMaxHeight(64);
    scroll.getStyleClass().add("token-strip-scroll");
    vm.traceProperty().addListener((o, x, t) -> {
      strip.getChildren().clear();
      if (t == null) {
        return;
      }
      int second = t.encoding().secondStart();
      for (int i = 0; i < t.tokens().size(); i++) {
        String tok = t.tokens().get(i);
        Label l = new Label(tok);
        l.getStyleClass().add("token-chip");
        l.pseudoClassStateChanged(States.MASK, tok.equals("[MASK]"));
        l.pseudoClassStateChanged(States.SPECIAL, tok.startsWith("["));
        l.pseudoClassStateChanged(States.SECOND, second >= 0 && i >= second);
        l.setTooltip(new Tooltip("token " + i + ", id " + t.encoding().ids()[i]
            + (second >= 0 ? ", segment " + (i >= second ? "b" : "a") : "")));
        strip.getChildren().add(l);
      }
    });
    return scroll;
  }

  private Node gridHeader() {
    Label title = new Label("All heads: layers ↓, heads →");
    title.getStyleClass().add("hs-heading");
    Label hint = new Label("click = view · × = switch off · Ctrl-click = pick several, X = switch them · L# = layer");
    hint.getStyleClass().add("hs-hint");
    VBox box = new VBox(2, title, hint, legend);
    return box;
  }

  private Node statusBar() {
    ProgressBar bar = new ProgressBar();
    bar.setId("progress");
    bar.setPrefWidth(160);
    bar.progressProperty().bind(vm.progressProperty());
    bar.visibleProperty().bind(vm.busyProperty());
    Label status = new Label();
    status.setId("status");
    status.textProperty().bind(vm.statusProperty());
    Label model = new Label();
    model.textProperty().bind(vm.modelNameProperty());
    model.getStyleClass().add("hs-heading");
    HBox box = new HBox(10, model, bar, status);
    box.setAlignment(Pos.CENTER_LEFT);
    box.setPadding(new Insets(3, 6, 3, 6));
    box.getStyleClass().add("status-bar");
    return box;
  }

  /** For tests: the trace shown. */
  AttentionTrace trace() {
    return vm.traceProperty().get();
  }

  Head selected() {
    return vm.selectedProperty().get();
  }
}
