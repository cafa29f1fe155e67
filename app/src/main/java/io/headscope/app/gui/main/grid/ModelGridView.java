package io.headscope.app.gui.main.grid;

import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.gui.fxml.ViewLoader;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.style.FxImages;
import io.headscope.app.render.MapsShown;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javafx.application.Platform;
import javafx.fxml.FXML;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.VBox;

/**
 * The model view: layers as rows, heads as columns, one thumbnail per head. A click (anywhere on a
 * thumbnail) only selects a head, ctrl-click picks several; switching off is a second, deliberate act:
 * X (or Delete) for the picked heads, the right-click menu, or a layer's button for the whole layer. Adapts to any number of layers and heads; thumbnails shrink to fit the width.
 */
public final class ModelGridView extends VBox {
  /** The smallest thumbnail: 12 x 12 heads at 1280x800 fit at about 22 px (a map's pattern still shows). */
  private static final double MIN_THUMB = 20;
  private static final double MAX_THUMB = 180;
  /** A grid of more heads than this (bert-large's 384 is not; a 1B Llama's 704 is) drops the names under its maps. */
  static final int DENSE_FROM = 400;
  /** The smallest thumbnail of a dense grid: 22 x 32 heads fit a 1280x800 window at about 12 px. */
  private static final double MIN_DENSE_THUMB = 8;
  /** The gap between key/value groups of grouped-query attention. */
  private static final double GROUP_GAP = 5;
  private static final double ZOOM_STEP = 1.25;
  private static final double MAX_ZOOM = 12;
  /** The thumbnails' size over the size that fits the view (1: all fit). */
  private double zoom = 1;
  private boolean dense;

  /** Zooms the thumbnails by {@code factor}, between the fitted size and {@link #MAX_ZOOM} times it. */
  public void zoom(double factor) {
    zoom = Math.max(1, Math.min(MAX_ZOOM, zoom * factor));
    fittedWidth = -100; // not a nudge: fit again
    resize();
  }

  /** The zoom (1: the grid fits the view), for tests. */
  double zoomFactor() {
    return zoom;
  }

  /** The loaded model's key/value heads ({@code heads} when every head has its own). */
  private int keyValueGroups(int heads) {
    io.headscope.model.BertModel m = vm.modelProperty().get();
    int g = m == null ? heads : m.config().parts().keyValueHeads();
    return heads <= 0 ? 1 : g <= 0 || g > heads || heads % g != 0 ? heads : g; // (a model's heads come after its layers)
  }

  /** What a grouped-query head's tooltip and its group's label say. */
  static String groupNote(int group, int share, int groups) {
    int first = group * share + 1;
    return groups == 1 ? "Multi-query attention: every head reads the one key/value head."
        : String.format(Locale.ROOT, "Key/value group %d of %d: heads %d-%d read the same keys and values (grouped-query "
            + "attention); their maps differ by their queries only.", group + 1, groups, first, first + share - 1);
  }

  /** Longer inputs are max-pooled to this many cells a side in the thumbnails (the head view shows every cell). */
  static final int THUMB_CELLS = 128;

  private final MainViewModel vm;
  @FXML private GridPane grid;
  @FXML private ScrollPane scroll;
  private final Map<Head, HeadThumbnail> thumbs = new HashMap<>();
  /** The grid's properties key that is true while thumbnails of a new input are being drawn. */
  public static final String PENDING = "headscope.pending";
  private long imageGeneration;
  /** Thumbnails of categories hidden by the legend's filter fade to this opacity (still clickable, in place). */
  static final double HIDDEN_OPACITY = 0.15;

  public ModelGridView(MainViewModel vm) {
    this.vm = vm;
    ViewLoader.load(this);

    vm.layersProperty().addListener((o, a, b) -> rebuild());
    vm.modelProperty().addListener((o, a, b) -> rebuild()); // its key/value groups
    vm.headsProperty().addListener((o, a, b) -> rebuild());
    vm.traceProperty().addListener((o, a, b) -> refreshImages());
    vm.ablatedProperty().addListener((o, a, b) -> refreshImages());
    vm.session().mapsShownProperty().addListener((o, a, b) -> refreshImages());
    vm.session().wordsShownProperty().addListener((o, a, b) -> refreshImages());
    vm.maskProperty().addListener((o, a, b) -> refreshSwitches());
    vm.selectedProperty().addListener((o, a, b) -> refreshSelection());
    vm.selectionProperty().addListener((o, a, b) -> refreshSelection());
    vm.scoresProperty().addListener((javafx.collections.ListChangeListener<HeadScore>) c -> refreshCategories());
    vm.shownCategoriesProperty().addListener((o, a, b) -> refreshCategories());
    scroll.viewportBoundsProperty().addListener((o, a, b) -> resize());
    // zoom: Ctrl + wheel (or Ctrl + plus / minus, Ctrl + 0 to fit again); past the fit the grid scrolls
    scroll.addEventFilter(javafx.scene.input.ScrollEvent.SCROLL, e -> {
      if (e.isControlDown() || e.isShortcutDown()) {
        zoom(e.getDeltaY() > 0 ? ZOOM_STEP : 1 / ZOOM_STEP);
        e.consume();
      }
    });
    setOnKeyPressed(e -> {
      if (e.getCode() == KeyCode.X || e.getCode() == KeyCode.DELETE) {
        vm.toggleSelectedHeads();
        e.consume();
      } else if (e.getCode() == KeyCode.ESCAPE) {
        vm.clearSelection();
      } else if (e.isShortcutDown() && (e.getCode() == KeyCode.PLUS || e.getCode() == KeyCode.EQUALS
          || e.getCode() == KeyCode.ADD)) {
        zoom(ZOOM_STEP);
        e.consume();
      } else if (e.isShortcutDown() && (e.getCode() == KeyCode.MINUS || e.getCode() == KeyCode.SUBTRACT)) {
        zoom(1 / ZOOM_STEP);
        e.consume();
      } else if (e.isShortcutDown() && (e.getCode() == KeyCode.DIGIT0 || e.getCode() == KeyCode.NUMPAD0)) {
        zoom(1 / zoom);
        e.consume();
      }
    });
    rebuild();
  }

  /**
   * Frames each thumbnail in its Kovaleva category's colour and fades the categories the legend hides.
   * Before the first classification (or while a new input runs) frames stay grey.
   */
  private void refreshCategories() {
    thumbs.forEach((h, t) -> {
      HeadScore s = vm.score(h);
      t.setCategory(s == null ? null : s.category(), s != null && s.uncertain(), s == null ? null : describe(s));
      Map<Head, Integer> ranked = ranks == null ? Map.of() : ranks.getValue();
      Integer place = ranked.get(h);
      t.setRank(place);
      t.setOpacity(!vm.isShown(h) ? HIDDEN_OPACITY : ranked.isEmpty() || place != null ? 1 : UNRANKED_OPACITY);
    });
  }

  /** The tooltip's line: the category and its confidence, or "uncertain" with the two likeliest. */
  static String describe(HeadScore s) {
    if (s.uncertain()) {
      return String.format(Locale.ROOT, "uncertain: likeliest %s (%.2f), then %s (%.2f)", s.category().label(),
          s.confidence(), s.runnerUp().label(), s.runnerUpConfidence());
    }
    return String.format(Locale.ROOT, "%s (confidence %.2f)", s.category().label(), s.confidence());
  }

  /** Heads ranked above the grid: their place, marked on their thumbnails (empty: no ranking). */
  private javafx.beans.value.ObservableValue<Map<Head, Integer>> ranks;
  /** While heads are ranked, the others fade to this opacity (the ranked ones stand out, all stay clickable). */
  static final double UNRANKED_OPACITY = 0.45;

  /** Marks the ranked heads with their place and fades the others while a ranking is shown. */
  public void showRanks(javafx.beans.value.ObservableValue<Map<Head, Integer>> ranks) {
    this.ranks = ranks;
    ranks.addListener((o, a, b) -> refreshCategories());
    refreshCategories();
  }

  /** Fades every map (a result shown while a newer input runs), or brings them back with 1. */
  public void setFaded(double opacity) {
    thumbs.values().forEach(t -> t.image.setOpacity(opacity));
  }

  /** The node a PNG export of the grid snapshots. */
  public GridPane gridNode() {
    return grid;
  }

  private void rebuild() {
    grid.getChildren().clear();
    thumbs.clear();
    // new thumbnails start small: the next fitting is never a scroll bar's nudge, even for the same shape in a
    // view of about the same size (a 2 x 3 GPT-2 after a 2 x 3 RoBERTa kept them small at both sizes)
    fittedLayers = -1;
    int layers = vm.layersProperty().get();
    int heads = vm.headsProperty().get();
    if (layers == 0) {
      Label wait = new Label();
      wait.textProperty().bind(vm.statusProperty());
      wait.setWrapText(true);
      javafx.scene.control.ProgressBar bar = new javafx.scene.control.ProgressBar();
      bar.progressProperty().bind(vm.progressProperty());
      bar.setPrefWidth(300);
      VBox box = new VBox(8, new Label("Preparing the model (the first start converts it; later starts take seconds)…"),
          bar, wait);
      box.setPadding(new Insets(30));
      grid.add(box, 0, 0);
      return;
    }
    int groups = keyValueGroups(heads);
    int share = Math.max(1, heads / Math.max(1, groups)); // query heads per key/value group
    boolean grouped = groups < heads;
    int top = grouped ? 1 : 0; // grouped-query: a row naming each key/value group above the head numbers
    dense = (long) layers * heads > DENSE_FROM;
    grid.setHgap(dense ? 1 : 3);
    if (grouped) {
      for (int g = 0; g < groups; g++) {
        Label gl = new Label(groups == 1 ? "one key/value head, shared by all " + heads + " heads"
            : (dense || share < 3 ? "KV " : "key/value group ") + (g + 1));
        gl.setId("kv-group-" + (g + 1));
        gl.getStyleClass().add("grid-group-label");
        gl.setMaxWidth(Double.MAX_VALUE);
        gl.setAlignment(Pos.CENTER);
        gl.setTooltip(new Tooltip(groupNote(g, share, groups)));
        GridPane.setMargin(gl, new Insets(0, 0, 0, g > 0 ? GROUP_GAP : 0));
        grid.add(gl, g * share + 1, 0, share, 1);
      }
    }
    for (int h = 0; h < heads; h++) {
      // a dense grid numbers every fourth head: two-digit numbers over every 10 px map would set its width
      Label col = new Label(dense && h % 4 != 0 ? "" : heads > 16 ? String.valueOf(h + 1) : "h" + (h + 1));
      col.getStyleClass().add("grid-column-label");
      if (dense && h % 4 != 0) {
        continue;
      }
      if (!dense) {
        GridPane.setHalignment(col, javafx.geometry.HPos.CENTER);
      }
      if (grouped && h > 0 && h % share == 0) {
        GridPane.setMargin(col, new Insets(0, 0, 0, GROUP_GAP));
      }
      if (dense) {
        col.setMinWidth(0);
        grid.add(col, h + 1, top, Math.min(4, heads - h), 1); // over its four columns: they keep their own width
      } else {
        grid.add(col, h + 1, top);
      }
    }
    for (int l = 0; l < layers; l++) {
      int layer = l;
      Button layerButton = new Button("L" + (l + 1));
      layerButton.setId("layer-" + (l + 1));
      layerButton.getStyleClass().add("layer-button");
      layerButton.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
      layerButton.setTooltip(new Tooltip("Switch all heads of layer " + (l + 1) + " off / on"));
      layerButton.setOnAction(e -> vm.toggleLayer(layer));
      layerButton.setFocusTraversable(false);
      VBox lab = new VBox(layerButton);
      lab.setAlignment(Pos.CENTER);
      grid.add(lab, 0, l + 1 + top);
      for (int h = 0; h < heads; h++) {
        Head head = new Head(l, h);
        HeadThumbnail t = new HeadThumbnail(head);
        t.setCompact(dense);
        if (grouped) {
          t.setGroup(groupNote(h / share, share, groups));
          if (h > 0 && h % share == 0) {
            GridPane.setMargin(t, new Insets(0, 0, 0, GROUP_GAP)); // a gap between groups: they read as blocks
          }
        }
        t.setOnMouseClicked(e -> {
          requestFocus();
          if (e.isControlDown() || e.isShortcutDown() || e.isShiftDown()) {
            vm.toggleInSelection(head);
          } else {
            vm.select(head);
          }
        });
        t.setOnContextMenuRequested(e -> {
          vm.select(head);
          switchMenu(head).show(t, e.getScreenX(), e.getScreenY());
          e.consume();
        });
        thumbs.put(head, t);
        grid.add(t, h + 1, l + 1 + top);
      }
    }
    fittedWidth = -100; // new thumbnails have no size yet: fit them even when the shape is the last model's
    resize();
    refreshImages();
    refreshSwitches();
    refreshSelection();
    refreshCategories();
  }

  /** The right-click menu: switching named in full, so it is never a slip of a select click. */
  private javafx.scene.control.ContextMenu switchMenu(Head head) {
    boolean off = vm.maskProperty().get().isOff(head);
    javafx.scene.control.MenuItem one = new javafx.scene.control.MenuItem("Switch " + head + (off ? " on" : " off"));
    one.setId("switch-head");
    one.setOnAction(e -> vm.toggleHead(head));
    boolean layerOff = true;
    for (int h = 0; h < vm.headsProperty().get(); h++) {
      layerOff &= vm.maskProperty().get().isOff(new Head(head.layer(), h));
    }
    javafx.scene.control.MenuItem layer = new javafx.scene.control.MenuItem(
        "Switch layer " + (head.layer() + 1) + (layerOff ? " on" : " off"));
    layer.setOnAction(e -> vm.toggleLayer(head.layer()));
    return new javafx.scene.control.ContextMenu(one, layer);
  }

  /** Fits all layers and heads into the visible area (at a glance), down to a readable minimum; then scrolls. */
  /** The view's size at the last fitting, so that a scroll bar coming or going does not start another. */
  private double fittedWidth = -100;
  private double fittedHeight = -100;
  /** The model's shape at the last fitting: another shape is always fitted anew, however small the grid. */
  private int fittedLayers = -1;
  private int fittedHeads = -1;

  private void resize() {
    int heads = Math.max(1, vm.headsProperty().get());
    int layers = Math.max(1, vm.layersProperty().get());
    double width = scroll.getViewportBounds().getWidth();
    double height = scroll.getViewportBounds().getHeight();
    if (width <= 0) {
      width = 560;
    }
    if (height <= 0) {
      height = 600;
    }
    // a scroll bar that the fitting pass below made go away widens the view by its own width: not a new size
    // of the window, and refitting to it would bring the bar back (the two passes would take turns for ever)
    // (only for the same model's shape: a 2 x 3 model after a 12 x 12 one fits the old view with the old small
    // thumbnails, and skipping its fit left it small at 1920x1080: the walk-through's GPT-2 grid)
    boolean nudge = Math.abs(width - fittedWidth) <= 24 && Math.abs(height - fittedHeight) <= 24
        && layers == fittedLayers && heads == fittedHeads;
    fittedWidth = width;
    fittedHeight = height;
    fittedLayers = layers;
    fittedHeads = heads;
    if (nudge && grid.prefWidth(-1) <= width + 0.5 && grid.prefHeight(-1) <= height + 0.5) {
      return;
    }
    int groups = keyValueGroups(heads);
    double gaps = groups < heads ? (groups - 1) * GROUP_GAP + 20 : 0;
    // a dense grid has no names under its maps and thin frames: per head 3 px of gap and 4 of frame
    double byWidth = (width - 48 - gaps - heads * (dense ? 4 : 14)) / heads;
    double byHeight = (height - 24 - (groups < heads ? 20 : 0) - layers * (dense ? 4 : 22)) / layers;
    double min = dense ? MIN_DENSE_THUMB : MIN_THUMB;
    double size = Math.max(min, Math.min(MAX_THUMB, Math.min(byWidth, byHeight) * zoom));
    thumbs.values().forEach(t -> t.setSize(size));
    // the estimate above ignores the labels' own widths (a model's "10-12" under a 24 px map): once laid out,
    // take off what still overflows the view, so that at 1280x800 the last layer and head are not behind scroll
    // bars (issue 40); one correction, as the grid grows linearly with the thumbnail's side
    Platform.runLater(() -> {
      grid.applyCss();
      grid.layout();
      double overW = grid.prefWidth(-1) - scroll.getViewportBounds().getWidth();
      double overH = grid.prefHeight(-1) - scroll.getViewportBounds().getHeight();
      double shrink = Math.max(overW / heads, overH / layers);
      if (zoom == 1 && shrink > 0.5 && scroll.getViewportBounds().getWidth() > 0) {
        double fitted = Math.max(min, size - Math.ceil(shrink));
        thumbs.values().forEach(t -> t.setSize(fitted));
      }
    });
  }

  /**
   * Draws the thumbnails of the maps shown (intact, as run or their difference) off the FX thread: a
   * 512-token input is 144 maps of 262,144 cells, max-pooled once to {@link #THUMB_CELLS} a side. The
   * images replace the old ones together, and only if no newer input or choice came meanwhile; until
   * then the grid's {@code headscope.pending} property is true.
   */
  private void refreshImages() {
    AttentionTrace intact = vm.traceProperty().get();
    AttentionTrace run = vm.ablatedProperty().get() == null ? intact : vm.ablatedProperty().get();
    MapsShown shown = vm.session().mapsShownProperty().get();
    HeadMask mask = vm.maskProperty().get();
    long gen = ++imageGeneration;
    if (intact == null) {
      thumbs.values().forEach(t -> t.setImage(null));
      getProperties().put(PENDING, false);
      return;
    }
    getProperties().put(PENDING, true);
    List<Head> heads = List.copyOf(thumbs.keySet());
    boolean words = vm.session().wordsShown();
    Thumbnails.draw(intact, run, shown, words, heads, THUMB_CELLS, pixels -> Platform.runLater(() -> {
      if (gen != imageGeneration) {
        return;
      }
      pixels.forEach((h, px) -> {
        HeadThumbnail thumb = thumbs.get(h);
        if (thumb != null) {
          thumb.setImage(px == null ? null : FxImages.image(px.argb(), px.width(), px.height(), mask.isOff(h)));
        }
      });
      getProperties().put(PENDING, false);
    }));
  }

  private void refreshSwitches() {
    HeadMask mask = vm.maskProperty().get();
    thumbs.forEach((h, t) -> t.setOff(mask.isOff(h)));
    refreshImages();
  }

  private void refreshSelection() {
    Head sel = vm.selectedProperty().get();
    Set<Head> picked = vm.selectionProperty().get();
    thumbs.forEach((h, t) -> {
      t.setSelected(h.equals(sel));
      t.setPicked(picked.contains(h));
    });
  }
}
