package io.headscope.app.gui.style;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.render.CategoryColors;
import javafx.scene.control.Label;
import javafx.scene.layout.Region;

/**
 * A small square in a category's colour, coloured by headscope.css (.category-swatch with the
 * category's class, e.g. .category-vertical, whose colour is the palette's -hs-category-vertical).
 */
public final class CategorySwatch {
  private CategorySwatch() {}

  public static Region of(HeadPattern p) {
    Region r = new Region();
    r.getStyleClass().addAll("category-swatch", CategoryColors.cssName(p));
    return r;
  }

  /** A label with the swatch in front (the colour keys). */
  public static Label labelled(String text, HeadPattern p) {
    Label l = new Label(text, of(p));
    l.getStyleClass().add("hs-small");
    return l;
  }

  /** A label with a grey swatch in front: the key for dots and frames that claim no category. */
  public static Label unknown(String text) {
    Region r = new Region();
    r.getStyleClass().addAll("category-swatch", "category-unknown");
    Label l = new Label(text, r);
    l.getStyleClass().add("hs-small");
    return l;
  }
}
