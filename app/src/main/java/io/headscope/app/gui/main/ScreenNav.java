package io.headscope.app.gui.main;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;

/**
 * The navigation: every screen listed under its group's heading in a narrow column, the chosen one
 * marked, and its name over its content. A column takes fifteen or twenty screens where a tab strip
 * took nine at a squeeze, and a screen is reached by mouse, by Tab and Space, by Ctrl+PgUp/PgDn, or by
 * Ctrl+1…9.
 */
final class ScreenNav extends VBox {
  /** One entry: what the column shows and what the content shows. */
  private record Entry(String id, String group, String title, Node view, ToggleButton button) {}

  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private final ToggleGroup toggles = new ToggleGroup();
  private final Label title = new Label();
  private final StackPane host = new StackPane();
  private final VBox content = new VBox(title, host);
  private final ScrollPane scroller = new ScrollPane(this);
  private String group;
  private String shown;

  ScreenNav() {
    setId("screen-nav");
    getStyleClass().add("screen-nav");
    scroller.setId("screen-nav-scroll");
    scroller.getStyleClass().add("screen-nav-scroll");
    scroller.setFitToWidth(true);
    scroller.setHbarPolicy(ScrollPane.ScrollBarPolicy.NEVER);
    title.setId("screen-title");
    title.getStyleClass().add("screen-title");
    title.setMaxWidth(Double.MAX_VALUE);
    VBox.setVgrow(host, Priority.ALWAYS);
    content.getStyleClass().add("screen-content");
  }

  /** The column, scrolling when the window is too low for every entry. */
  Node column() {
    return scroller;
  }

  /** The chosen screen under its name. */
  Node content() {
    return content;
  }

  /** Lists a screen; the first one listed is shown. */
  void add(String groupName, String name, String id, String tip, Node view) {
    if (!groupName.equals(group)) {
      Label heading = new Label(groupName);
      heading.getStyleClass().add("nav-group");
      getChildren().add(heading);
      group = groupName;
    }
    ToggleButton b = new ToggleButton(name);
    b.setId("tab-" + id);
    b.getStyleClass().add("nav-item");
    b.setMaxWidth(Double.MAX_VALUE);
    b.setToggleGroup(toggles);
    b.setTooltip(new Tooltip(tip));
    // a click on the chosen entry keeps it chosen
    b.setOnAction(e -> show(id));
    getChildren().add(b);
    // every screen stays in the scene, hidden when not chosen (as a tab's content did): lookups and
    // keyboard focus find it, and its layout is kept
    view.setVisible(false);
    host.getChildren().add(view);
    entries.put(id, new Entry(id, groupName, name, view, b));
    if (shown == null) {
      show(id);
    }
  }

  /** Runs after another screen is shown (the status bar forgets another screen's error). */
  void onShow(Runnable r) {
    onShow = r;
  }

  private Runnable onShow = () -> { };

  void show(String id) {
    Entry e = entries.get(id);
    if (e == null) {
      throw new IllegalArgumentException("No screen " + id);
    }
    boolean other = shown != null && !shown.equals(id);
    shown = id;
    if (other) {
      onShow.run();
    }
    e.button().setSelected(true);
    entries.values().forEach(x -> x.view().setVisible(x == e));
    title.setText(e.group() + " › " + e.title());
  }

  String shown() {
    return shown;
  }

  /** Ctrl+PgDn / Ctrl+PgUp: the next or previous screen; Ctrl+1…9: the first nine. */
  void installKeys(Parent root) {
    root.addEventFilter(KeyEvent.KEY_PRESSED, k -> {
      if (!k.isShortcutDown()) {
        return;
      }
      List<String> ids = new ArrayList<>(entries.keySet());
      int at = ids.indexOf(shown);
      String next = null;
      if (k.getCode() == KeyCode.PAGE_DOWN) {
        next = ids.get((at + 1) % ids.size());
      } else if (k.getCode() == KeyCode.PAGE_UP) {
        next = ids.get((at - 1 + ids.size()) % ids.size());
      } else if (k.getCode().compareTo(KeyCode.DIGIT1) >= 0 && k.getCode().compareTo(KeyCode.DIGIT9) <= 0) {
        int n = k.getCode().ordinal() - KeyCode.DIGIT1.ordinal();
        next = n < ids.size() ? ids.get(n) : null;
      }
      if (next != null) {
        show(next);
        entries.get(next).button().requestFocus();
        k.consume();
      }
    });
  }
}
