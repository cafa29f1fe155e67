package io.headscope.app.gui.linguistics;

import io.headscope.analysis.linguistics.CorefOnWindow;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.VBox;
import javafx.scene.text.Text;
import javafx.scene.text.TextFlow;

/**
 * One head on one window of a coreference treebank: the window's text with every mention in brackets
 * and its entity after it, and a table of the mentions to resolve: the earlier mentions of the same
 * entity (gold), the head's pick, and the nearest and head-match baselines' picks. Selecting a row marks
 * that mention in the text, its gold antecedents and the head's pick.
 */
public final class CorefPanel extends VBox {
  private final TextFlow text = new TextFlow();
  private final TableView<CorefOnWindow.Pick> table = new TableView<>();
  private CorefOnWindow shown;

  public CorefPanel() {
    setId("ling-coref");
    setSpacing(4);
    text.setId("ling-coref-text");
    text.getStyleClass().add("hs-coref-text");
    table.setId("ling-coref-picks");
    column("mention", 1.3, p -> shown.text(p.mention()) + " (" + p.mention().head() + ")");
    column("type", 0.6, p -> p.type().equals("pronoun") ? "pron." : p.type());
    column("gold antecedents", 1.6, p -> String.join(", ", p.gold().stream().map(this::word).toList()));
    column("head picks", 1.1, p -> mark(p.chosen(), p.right()));
    column("nearest", 1.1, p -> mark(p.nearest(), p.nearestRight()));
    column("head match", 1.1, p -> mark(p.headMatch(), p.headMatchRight()));
    // the columns share the panel's width (a long cell is cut with an ellipsis; the full text is its tooltip)
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY);
    table.setFixedCellSize(24);
    table.prefHeightProperty().bind(javafx.beans.binding.Bindings.size(table.getItems()).multiply(24).add(48));
    table.minHeightProperty().bind(table.prefHeightProperty());
    table.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> drawText(b));
    getChildren().addAll(text, table);
  }

  private void column(String title, double share, Function<CorefOnWindow.Pick, String> value) {
    TableColumn<CorefOnWindow.Pick, String> c = new TableColumn<>(title);
    c.setPrefWidth(100 * share);
    c.setSortable(false);
    c.setCellValueFactory(cell -> new ReadOnlyStringWrapper(value.apply(cell.getValue())));
    c.setCellFactory(col -> new javafx.scene.control.TableCell<>() {
      @Override
      protected void updateItem(String item, boolean empty) {
        super.updateItem(item, empty);
        setText(empty ? null : item);
        setTooltip(empty || item == null ? null : new javafx.scene.control.Tooltip(item));
      }
    });
    table.getColumns().add(c);
  }

  /** A pick with its verdict first, so a narrow column still shows it: {@code ✓ bicycle (4)}. */
  private String mark(int word, boolean right) {
    return (right ? "✓ " : "✗ ") + word(word);
  }

  /** A head word and its place: {@code Anna (1)}. */
  private String word(int i) {
    return shown.words().get(i) + " (" + i + ")";
  }

  void show(CorefOnWindow on) {
    shown = on;
    table.getItems().setAll(on == null ? List.of() : on.picks());
    drawText(null);
  }

  CorefOnWindow shown() {
    return shown;
  }

  TableView<CorefOnWindow.Pick> table() {
    return table;
  }

  TextFlow text() {
    return text;
  }

  private void drawText(CorefOnWindow.Pick selected) {
    text.getChildren().clear();
    if (shown == null) {
      return;
    }
    Set<Integer> gold = selected == null ? Set.of() : new HashSet<>(selected.gold());
    List<String> words = shown.words();
    for (int i = 1; i < words.size(); i++) {
      for (CorefOnWindow.Span s : shown.mentions()) {
        if (s.start() == i) {
          text.getChildren().add(styled("[", "hs-coref-bracket"));
        }
      }
      Text w = new Text(words.get(i));
      w.getStyleClass().add("hs-coref-word");
      if (selected != null) {
        if (i == selected.mention().head()) {
          w.getStyleClass().add("hs-coref-mention");
        } else if (i == selected.chosen()) {
          w.getStyleClass().add(selected.right() ? "hs-coref-right" : "hs-coref-wrong");
        } else if (gold.contains(i)) {
          w.getStyleClass().add("hs-coref-gold");
        }
      }
      text.getChildren().add(w);
      // brackets close innermost first: the later-starting of two spans ending here
      for (int k = shown.mentions().size() - 1; k >= 0; k--) {
        CorefOnWindow.Span s = shown.mentions().get(k);
        if (s.end() == i) {
          text.getChildren().addAll(styled("]", "hs-coref-bracket"), styled(s.entity(), "hs-coref-entity"));
        }
      }
      text.getChildren().add(new Text(" "));
    }
  }

  private static Text styled(String s, String style) {
    Text t = new Text(s);
    t.getStyleClass().add(style);
    return t;
  }
}
