package io.headscope.app.gui.linguistics;

import io.headscope.analysis.linguistics.DependencyHeads;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.model.core.Head;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.VBox;

/**
 * The Linguistics screen: open a treebank, the accuracy grid of the chosen relation or coreference,
 * the best-head table, one head on one sentence, and the exports (the CLI's CSV writers, the figure
 * renderer).
 */
public final class LinguisticsView extends ScreenView<LinguisticsViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("linguistics", "Linguistics",
      "Syntax, coref", "Linguistics: which heads track syntax and coreference (CoNLL-U)…",
      "Linguistics: which heads track dependency relations and coreference in a treebank",
      c -> new LinguisticsView(new LinguisticsViewModel(c.session()), c));

  @Override
  public List<ExportItem> exports() {
    return List.of(whenDone("export-linguistics-csv", "Linguistics CSVs (relations, best heads, coreference)…",
            this::exportCsv),
        whenDone("export-linguistics-figure", "Linguistics grid as figure (PNG 300 dpi or SVG)…", this::exportFigure));
  }

  /** The height of a row of the best-heads table. */
  private static final double TABLE_ROW = 24;
  @FXML private Button openButton;
  @FXML private CheckBox universalBox;
  @FXML private ScrollPane scroll;
  @FXML private VBox results;
  @FXML private ChoiceBox<RelationChoice> relationChoice;
  @FXML private AccuracyGrid grid;
  @FXML private Label hover;
  @FXML private TableView<DependencyHeads.Best> bestTable;
  @FXML private Label hiddenLabel;
  @FXML private Label bestCaption;
  @FXML private Label gridCaption;
  @FXML private TableView<LinguisticsViewModel.CorefRow> corefTable;
  @FXML private javafx.scene.layout.HBox hiddenRow;
  @FXML private CorefPanel corefPanel;
  @FXML private CheckBox rareBox;
  @FXML private Button previousButton;
  @FXML private Button nextButton;
  @FXML private Label sentenceStatus;
  @FXML private SentenceMap sentenceMap;
  @FXML private VBox panelBox;
  private Head opened;

  public LinguisticsView(LinguisticsViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    openButton.disableProperty().bind(vm.runningProperty().or(context.session().modelProperty().isNull()));
    universalBox.selectedProperty().bindBidirectional(vm.universalProperty());
    runBar.bindCancel(vm, statusLabel);
    results.visibleProperty().bind(vm.resultProperty().isNotNull());
    relationChoice.setItems(vm.relations());
    relationChoice.valueProperty().bindBidirectional(vm.chosenProperty());
    grid.onHead(h -> {
      opened = h;
      vm.open(h);
      refresh();
    }, h -> hover.setText(vm.describe(h)));
    addColumn("relation", 95, b -> b.relation());
    addColumn("words", 55, b -> String.valueOf(b.count()));
    addColumn("best head", 130, b -> b.layer() + "-" + b.head() + " " + b.direction().label());
    addColumn("accuracy", 75, b -> pct(b.accuracy()));
    addColumn("offset", 55, b -> String.format(Locale.ROOT, "%+d", b.baselineOffset()));
    addColumn("baseline", 75, b -> pct(b.baselineAccuracy()));
    previousButton.disableProperty().bind(vm.sentenceProperty().isNull().and(vm.corefWindowProperty().isNull()));
    nextButton.disableProperty().bind(previousButton.disableProperty());
    corefColumn("mentions", 110, r -> r.type() + " (" + r.mentions() + ")");
    corefColumn("best head", 80, LinguisticsViewModel.CorefRow::bestHead);
    corefColumn("accuracy", 75, r -> pct(r.best()));
    corefColumn("nearest", 80, r -> pct(r.nearest()));
    corefColumn("head match", 90, r -> pct(r.headMatch()));
    corefTable.setFixedCellSize(TABLE_ROW);
    corefTable.prefHeightProperty().bind(
        Bindings.size(corefTable.getItems()).multiply(TABLE_ROW).add(TABLE_ROW + 16));
    corefTable.minHeightProperty().bind(corefTable.prefHeightProperty());
    // the sentence map for a relation, the window's mentions for coreference: one at a time
    sentenceMap.visibleProperty().bind(vm.sentenceProperty().isNotNull());
    sentenceMap.managedProperty().bind(sentenceMap.visibleProperty());
    corefPanel.visibleProperty().bind(vm.corefWindowProperty().isNotNull());
    corefPanel.managedProperty().bind(corefPanel.visibleProperty());
    vm.corefWindowProperty().addListener((o, a, b) -> corefPanel.show(b));
    // a head opened: its sentence or window comes into sight (the grid stays above it when there is room)
    vm.sentenceProperty().addListener((o, a, b) -> revealPanel(a == null && b != null));
    vm.corefWindowProperty().addListener((o, a, b) -> revealPanel(a == null && b != null));
    sentenceStatus.textProperty().bind(vm.sentenceStatusProperty());
    // the table is as tall as its rows (and its sideways scroll bar): the page scrolls, not the table
    bestTable.setFixedCellSize(TABLE_ROW);
    bestTable.prefHeightProperty().bind(
        Bindings.size(bestTable.getItems()).multiply(TABLE_ROW).add(2 * TABLE_ROW + 16));
    bestTable.minHeightProperty().bind(bestTable.prefHeightProperty());
    vm.resultProperty().addListener((o, a, b) -> {
      opened = null;
      bestTable.getItems().setAll(vm.best());
      refresh();
    });
    rareBox.setText("Show relations seen fewer than " + LinguisticsViewModel.MIN_WORDS + " times");
    rareBox.selectedProperty().bindBidirectional(vm.showRareProperty());
    vm.showRareProperty().addListener((o, a, b) -> bestTable.getItems().setAll(vm.best()));
    hiddenLabel.textProperty().bind(vm.hiddenProperty());
    vm.chosenProperty().addListener((o, a, b) -> {
      showTables();
      refresh();
    });
    vm.resultProperty().addListener((o, a, b) -> showTables());
    showTables();
    vm.sentenceProperty().addListener((o, a, b) -> refresh());
    scroll.viewportBoundsProperty().addListener((o, a, b) -> refresh());
  }

  /** The relations' best heads, or for coreference the best head per mention type beside the baselines. */
  private void showTables() {
    boolean coref = vm.coreferenceChosen();
    bestTable.setVisible(!coref);
    bestTable.setManaged(!coref);
    hiddenRow.setVisible(!coref);
    hiddenRow.setManaged(!coref);
    corefTable.setVisible(coref);
    corefTable.setManaged(coref);
    corefTable.getItems().setAll(vm.corefRows());
    previousButton.setText(coref ? "◀ Previous window" : "◀ Previous sentence");
    nextButton.setText(coref ? "Next window ▶" : "Next sentence ▶");
    gridCaption.setText(coref
        ? "Each head's accuracy (%) at picking an antecedent of the entity for every mention; orange frame: the "
            + "best head. Click a head to see its picks on a window of the file."
        : "Each head's accuracy (%), the better of dep→head and head→dep; orange frame: the best head. Click a head "
            + "to see it on a sentence.");
    bestCaption.setText(coref
        ? "Best head per mention type beside the nearest-mention and head-match baselines (Clark et al. 2019, Table 2)"
        : "Best head per relation beside the best fixed offset (Clark et al. 2019, Table 1)");
  }

  private void corefColumn(String title, double width, Function<LinguisticsViewModel.CorefRow, String> value) {
    TableColumn<LinguisticsViewModel.CorefRow, String> c = new TableColumn<>(title);
    c.setPrefWidth(width);
    c.setCellValueFactory(cell -> new ReadOnlyStringWrapper(value.apply(cell.getValue())));
    c.setSortable(false);
    corefTable.getColumns().add(c);
  }

  private void addColumn(String title, double width, Function<DependencyHeads.Best, String> value) {
    TableColumn<DependencyHeads.Best, String> c = new TableColumn<>(title);
    c.setPrefWidth(width);
    c.setCellValueFactory(cell -> new ReadOnlyStringWrapper(value.apply(cell.getValue())));
    c.setSortable(false);
    bestTable.getColumns().add(c);
  }

  private static String pct(double v) {
    return String.format(Locale.ROOT, "%.1f%%", 100 * v);
  }

  @FXML
  private void openFile() {
    Path p = context.dialogs().openFile("A CoNLL-U treebank (UTF-8; Universal Dependencies, CorefUD)");
    if (p != null) {
      vm.open(p);
    }
  }

  /** Opens a treebank as the Open button does (for scripts and the screenshot tour). */
  public void open(Path file) {
    vm.open(file);
  }

  /** Chooses a relation of the list by name, if it is there. */
  public void choose(String relation) {
    vm.relations().stream().filter(c -> c.relation().equals(relation)).findFirst().ifPresent(vm.chosenProperty()::set);
  }

  /** Opens the chosen relation's best head, as a click on its cell does. */
  public void openBest() {
    var c = vm.chosenProperty().get();
    vm.best().stream().filter(b -> c != null && b.relation().equals(c.relation())).findFirst().ifPresent(b -> {
      opened = new Head(b.layer() - 1, b.head() - 1);
      vm.open(opened);
      refresh();
    });
  }

  /** Opens a head as a click on its cell does (for scripts and the screenshot tour). */
  public void openHead(Head h) {
    opened = h;
    vm.open(h);
    refresh();
  }

  @FXML
  private void previous() {
    vm.step(-1);
  }

  @FXML
  private void next() {
    vm.step(1);
  }

  /** Asks for a file name and writes relations.csv, -best and (with coreference) -coref, -coref-baselines. */
  @FXML
  public void exportCsv() {
    context.dialogs().export("linguistics CSVs", "csv", "relations.csv", vm.resultProperty()::get,
        LinguisticsViewModel::writeCsvs);
  }

  /** The accuracy grid as a PNG (300 dpi) or SVG figure. */
  @FXML
  public void exportFigure() {
    context.dialogs().exportFigure("linguistics", vm::figure);
  }

  private void refresh() {
    double w = scroll.getViewportBounds().getWidth();
    grid.show(vm.grid(), opened, w > 0 ? w - 8 : 500);
    sentenceMap.show(vm.sentenceProperty().get(), vm.markedRelation(), w > 0 ? w - 8 : 500);
  }

  /** For tests: the grid. */
  AccuracyGrid grid() {
    return grid;
  }

  /** For tests: the coreference panel. */
  CorefPanel corefPanel() {
    return corefPanel;
  }

  /** For tests: the sentence panel. */
  SentenceMap sentenceMap() {
    return sentenceMap;
  }

  /**
   * Scrolls so that the panel's top is in view when it first opens (not on ◀ ▶, which keep the reader's place):
   * the smallest scroll that shows it, so the grid stays visible above it where the pane is tall enough.
   */
  private void revealPanel(boolean opened) {
    if (!opened) {
      return;
    }
    javafx.application.Platform.runLater(() -> {
      results.applyCss();
      results.layout();
      double content = results.getHeight();
      double view = scroll.getViewportBounds().getHeight();
      if (content <= view || view <= 0) {
        return;
      }
      double top = panelBox.getBoundsInParent().getMinY();
      double shown = scroll.getVvalue() * (content - view);
      if (top < shown || top + Math.min(panelBox.getHeight(), view) > shown + view) {
        double target = Math.min(top, Math.max(0, top + Math.min(panelBox.getHeight(), view) - view));
        scroll.setVvalue(Math.max(0, Math.min(1, target / (content - view))));
      }
    });
  }
}
