package io.headscope.app.gui.main.grid;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.style.CategorySwatch;
import io.headscope.app.gui.style.States;
import java.util.EnumMap;
import java.util.Map;
import javafx.collections.ListChangeListener;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;

/**
 * The five Kovaleva categories in their frame colours, with how many heads fall in each on this
 * input. Each is also the grid's filter: click to hide or show that category's heads.
 */
public final class CategoryLegend extends FlowPane {
  private final MainViewModel vm;
  private final Map<HeadPattern, ToggleButton> items = new EnumMap<>(HeadPattern.class);
  /** How many heads are uncertain (counted there, not under their likeliest category); hidden when none. */
  private final javafx.scene.control.Label uncertain = new javafx.scene.control.Label();

  public CategoryLegend(MainViewModel vm) {
    super(6, 2);
    this.vm = vm;
    setId("category-legend");
    setAlignment(Pos.CENTER_LEFT);
    for (HeadPattern p : HeadPattern.values()) {
      ToggleButton b = new ToggleButton();
      b.setId("legend-" + p.columnName());
      b.setFocusTraversable(false);
      b.setTooltip(new Tooltip(describe(p) + "\nClick to hide or show these heads in the grid."));
      b.getStyleClass().add("legend-item");
      b.setGraphic(CategorySwatch.of(p));
      b.setOnAction(e -> vm.toggleCategory(p));
      items.put(p, b);
      getChildren().add(b);
    }
    uncertain.setId("legend-uncertain");
    uncertain.getStyleClass().add("legend-uncertain");
    uncertain.setTooltip(new Tooltip(String.format(java.util.Locale.ROOT, "uncertain: the classifier's top probability "
        + "is under %.2f, so no category is claimed (grey dashed frame); the head's panel names the two likeliest.",
        io.headscope.analysis.heads.LearnedRule.UNCERTAIN_BELOW)));
    uncertain.managedProperty().bind(uncertain.visibleProperty());
    getChildren().add(uncertain);
    Button all = new Button("show all");
    all.setId("legend-all");
    all.setFocusTraversable(false);
    all.getStyleClass().add("legend-all");
    all.setOnAction(e -> vm.showAllCategories());
    all.visibleProperty().bind(vm.shownCategoriesProperty().map(s -> s.size() < HeadPattern.values().length));
    all.managedProperty().bind(all.visibleProperty());
    getChildren().add(all);
    withheld.setId("legend-withheld");
    withheld.getStyleClass().add("hs-small");
    withheld.managedProperty().bind(withheld.visibleProperty());
    // one short line: a long one widened the grid's pane and pushed the head view out of a 1280-px window, and
    // one wrapped to the legend's width went through a tall first layout that left the thumbnails small
    withheld.setTooltip(new Tooltip("Each token of a causal model sees only those before it. Kovaleva et al.'s "
        + "categories are defined on bidirectional maps; a causal "
        + "model's maps are triangles, so no head gets one. Rank the heads by the first token's share "
        + "(the attention sink), entropy or largest weight above the grid instead."));
    getChildren().add(withheld);
    vm.modelProperty().addListener((o, a, b) -> refresh());
    vm.scoresProperty().addListener((ListChangeListener<HeadScore>) c -> refresh());
    vm.shownCategoriesProperty().addListener((o, a, b) -> refresh());
    refresh();
  }

  /** One line per category for a person (the definitions are Kovaleva et al.'s; METHODS.md). */
  public static String describe(HeadPattern p) {
    return switch (p) {
      case VERTICAL -> "vertical: nearly every token looks at the same one or two tokens ([CLS], [SEP], punctuation).";
      case DIAGONAL -> "diagonal: each token looks at itself or a neighbour (previous, next).";
      case VERTICAL_DIAGONAL -> "vertical+diagonal: both at once.";
      case BLOCK -> "block: in a pair, tokens look within their own sentence.";
      case HETEROGENEOUS -> "heterogeneous: no simple pattern; the only kind that can carry rich structure.";
    };
  }

  /** What the frames mean on a causal model, where the category chips would name what no head has. */
  private final javafx.scene.control.Label withheld = new javafx.scene.control.Label(WITHHELD);

  /** The legend's line on a causal model (its chips hidden). */
  public static final String WITHHELD = "No categories on a causal model: frames are plain grey";

  /** Whether the loaded model gets no categories (a causal model: HeadClassifier.appliesTo). */
  static boolean withheld(MainViewModel vm) {
    io.headscope.model.BertModel m = vm.modelProperty().get();
    return m != null && !io.headscope.analysis.heads.HeadClassifier.appliesTo(m);
  }

  private void refresh() {
    boolean none = withheld(vm);
    withheld.setVisible(none);
    items.values().forEach(b -> {
      b.setVisible(!none);
      b.setManaged(!none);
    });
    Map<HeadPattern, Integer> counts = new EnumMap<>(HeadPattern.class);
    int unsure = 0;
    for (HeadScore s : vm.scoresProperty()) {
      if (s.uncertain()) {
        unsure++;
      } else {
        counts.merge(s.category(), 1, Integer::sum);
      }
    }
    uncertain.setText(HeadPattern.UNCERTAIN_LABEL + " " + unsure);
    uncertain.setVisible(unsure > 0 && !none);
    for (HeadPattern p : HeadPattern.values()) {
      ToggleButton b = items.get(p);
      boolean shown = vm.shownCategoriesProperty().get().contains(p);
      b.setSelected(shown);
      b.setText(p.label() + (vm.scoresProperty().isEmpty() ? "" : " " + counts.getOrDefault(p, 0)));
      b.pseudoClassStateChanged(States.FADED, !shown);
    }
  }
}
