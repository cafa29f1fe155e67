package io.headscope.app.gui.chart;

import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import java.util.Locale;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.layout.HBox;
import javafx.scene.layout.StackPane;
import javafx.scene.paint.Color;
import javafx.scene.shape.Rectangle;

/** A number in [0,1] as a short horizontal bar with its value: the panels' one visual unit. */
public final class Bars {
  public static final double WIDTH = 50;

  private Bars() {}

  public static Node bar(double value, Color color) {
    double v = Double.isFinite(value) ? Math.max(0, Math.min(1, value)) : 0;
    Rectangle track = new Rectangle(WIDTH, 8, FxColors.of(UiColor.TRACK));
    Rectangle fill = new Rectangle(Math.max(0.5, v * WIDTH), 8, color);
    StackPane s = new StackPane(track, fill);
    StackPane.setAlignment(fill, Pos.CENTER_LEFT);
    Label num = new Label(String.format(Locale.ROOT, "%.2f", value));
    num.getStyleClass().add("hs-number");
    num.setMinWidth(34);
    HBox row = new HBox(4, s, num);
    row.setAlignment(Pos.CENTER_LEFT);
    return row;
  }

  public static Label name(String text) {
    Label l = new Label(text);
    l.getStyleClass().add("hs-small");
    l.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
    return l;
  }

  public static Label heading(String text) {
    Label l = new Label(text);
    l.getStyleClass().add("hs-small-heading");
    l.setWrapText(true);
    return l;
  }
}
