package io.headscope.app.gui.main.grid;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.gui.style.States;
import io.headscope.app.render.UiColor;
import io.headscope.model.core.Head;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.image.Image;
import javafx.scene.image.ImageView;
import javafx.scene.layout.Border;
import javafx.scene.layout.BorderStroke;
import javafx.scene.layout.BorderStrokeStyle;
import javafx.scene.layout.BorderWidths;
import javafx.scene.layout.CornerRadii;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.shape.Line;

/**
 * One head in the grid: its map, framed in its category's colour, its name and a red OFF while it is
 * switched off. The OFF mark only shows the state: a click anywhere on the thumbnail selects (a corner
 * switch on a 30 px map was one slip from "select", issue 31); switching is X, the right-click menu or
 * the head panel's button.
 */
final class HeadThumbnail extends VBox {
  final Head head;
  final ImageView image = new ImageView();
  final ToggleButton power = new ToggleButton();
  private final StackPane frame;
  private final Label name;
  private Integer rank;
  private final Line crossA = new Line();
  private final Line crossB = new Line();
  private static final Color UNKNOWN = FxColors.of(UiColor.UNKNOWN);
  private static final String HINT = "Click to view, Ctrl-click to pick several; X or right-click to switch off, Ctrl+Z to undo.";
  private final Tooltip tip = new Tooltip();
  private Color category = UNKNOWN;
  private boolean uncertain;
  private HeadPattern pattern;
  private boolean selected;
  private boolean picked;

  HeadThumbnail(Head head) {
    this.head = head;
    setId("thumb-" + head);
    getStyleClass().add("head-thumbnail");
    image.setSmooth(false);
    image.setPreserveRatio(false);
    crossA.getStyleClass().add("head-cross");
    crossB.getStyleClass().add("head-cross");
    crossA.setVisible(false);
    crossB.setVisible(false);
    crossA.setManaged(false);
    crossB.setManaged(false);
    frame = new StackPane(image, crossA, crossB, power);
    StackPane.setAlignment(power, Pos.TOP_RIGHT);
    frame.setPadding(new Insets(1));
    frame.setId("frame-" + head);
    name = new Label(head.toString());
    name.getStyleClass().add("head-name");
    power.setId("power-" + head);
    power.getStyleClass().add("head-power");
    power.setSelected(true);
    power.setFocusTraversable(false);
    // a mark, not a button: clicks go through to the thumbnail, which selects
    power.setMouseTransparent(true);
    setAlignment(Pos.CENTER);
    setSpacing(0);
    getChildren().addAll(frame, name);
    setOff(false);
    Tooltip.install(frame, tip);
    setCategory(null, null);
    updateBorder();
  }

  void setSize(double px) {
    image.setFitWidth(px);
    image.setFitHeight(px);
    crossA.setStartX(3); crossA.setStartY(3); crossA.setEndX(px + 3); crossA.setEndY(px + 3);
    crossB.setStartX(px + 3); crossB.setStartY(3); crossB.setEndX(3); crossB.setEndY(px + 3);
  }

  void setImage(Image img) {
    image.setImage(img);
  }

  void setOff(boolean off) {
    power.setSelected(!off);
    // a red "OFF" in the corner while off; nothing while on (the map's corner stays visible)
    power.setText(off ? "OFF" : "");
    power.setVisible(off);
    crossA.setVisible(off);
    crossB.setVisible(off);
    showName();
    pseudoClassStateChanged(States.OFF, off);
  }

  /** Frames the map in the category's colour; null while the category is not known yet. */
  void setCategory(HeadPattern p, String description) {
    setCategory(p, false, description);
  }

  /**
   * @param uncertain the classifier is too unsure to name {@code p}: the frame is grey and dashed, not
   *     the category's colour (a colour never claims more than the classifier knows)
   */
  void setCategory(HeadPattern p, boolean uncertain, String description) {
    pattern = p;
    this.uncertain = p != null && uncertain;
    category = p == null || uncertain ? UNKNOWN : FxColors.category(p);
    this.description = description;
    tip.setText("Head " + head + " (layer " + (head.layer() + 1) + ", head " + (head.head() + 1) + ")"
        + (description == null ? "" : ": " + description) + "." + (group == null ? "" : "\n" + group) + "\n" + HINT);
    updateBorder();
  }

  private String description;
  /** The key/value group it shares (grouped-query attention), as the tooltip says it; null: its own. */
  private String group;

  void setGroup(String note) {
    group = note;
    setCategory(pattern, uncertain, description);
  }

  /** A dense grid (hundreds of heads): no name under the map (the row and column labels name it) and a thin frame. */
  void setCompact(boolean compact) {
    name.setVisible(!compact);
    name.setManaged(!compact);
    power.setManaged(!compact); // its button's own minimum width would hold the map at 16 px; the cross says OFF
    if (compact && !getStyleClass().contains("compact")) {
      getStyleClass().add("compact");
    } else if (!compact) {
      getStyleClass().remove("compact");
    }
    frameWidth = compact ? 1.5 : 3;
    frame.setPadding(new Insets(compact ? 0 : 1));
    updateBorder();
  }

  private double frameWidth = 3;

  /** The category the frame shows (for tests and the legend), or null. */
  HeadPattern category() {
    return pattern;
  }

  /** Whether the frame says "uncertain" (grey, dashed) rather than a category. */
  boolean uncertain() {
    return uncertain;
  }

  /** Its place in the ranking above the grid, shown before its name and as a highlight; null: not ranked. */
  void setRank(Integer place) {
    rank = place;
    showName();
    pseudoClassStateChanged(States.RANKED, place != null);
  }

  /** The name under the map: {@code 8-10}, or {@code #1 8-10} while ranked. */
  private void showName() {
    name.setText(rank == null ? head.toString() : "#" + rank + " " + head);
  }

  /** Its place in the ranking, or null (for tests). */
  Integer rank() {
    return rank;
  }

  void setSelected(boolean s) {
    selected = s;
    updateBorder();
  }

  void setPicked(boolean p) {
    picked = p;
    updateBorder();
  }

  private void updateBorder() {
    frame.setBorder(new Border(new BorderStroke(category, uncertain ? BorderStrokeStyle.DASHED : BorderStrokeStyle.SOLID,
        CornerRadii.EMPTY, new BorderWidths(frameWidth))));
    // the selected head's dark background wins over the picked orange (headscope.css)
    pseudoClassStateChanged(States.SELECTED, selected);
    pseudoClassStateChanged(States.PICKED, picked);
  }
}
