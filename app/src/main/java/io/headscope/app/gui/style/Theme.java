package io.headscope.app.gui.style;

import io.headscope.app.render.Palette;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javafx.scene.Scene;
import javafx.scene.control.Dialog;

/**
 * The window's look: a generated stylesheet that defines the palette's colours as looked-up colours
 * ({@code -hs-off}, {@code -hs-category-vertical}...) and then headscope.css, whose rules use them. So
 * a colour is written once, in the Java palette, and reaches the stylesheet and the Java2D renderer.
 */
public final class Theme {
  /** The one stylesheet (JabRef's Base.css idea): layout-independent look of every screen. */
  public static final String STYLESHEET = "/io/headscope/app/gui/headscope.css";

  private Theme() {}

  /** Adds the colours and the stylesheet to the window's scene. */
  public static void apply(Scene scene) {
    scene.getStylesheets().addAll(stylesheets());
  }

  /** Adds them to a dialog, which has a scene of its own. */
  public static void apply(Dialog<?> dialog) {
    dialog.getDialogPane().getStylesheets().addAll(stylesheets());
  }

  /** The generated colours first: headscope.css looks them up. */
  static List<String> stylesheets() {
    return List.of(colorsStylesheet(), Theme.class.getResource(STYLESHEET).toExternalForm());
  }

  /** The palette as a {@code data:} stylesheet (JavaFX reads data URLs since 17): {@code .root { -hs-off: <its colour>; ... }}. */
  static String colorsStylesheet() {
    return "data:text/css;base64," + Base64.getEncoder().encodeToString(colorsCss().getBytes(StandardCharsets.UTF_8));
  }

  static String colorsCss() {
    StringBuilder css = new StringBuilder(".root {\n");
    for (Map.Entry<String, Integer> e : Palette.lookedUpColors().entrySet()) {
      css.append(String.format(Locale.ROOT, "  %s: #%06x;%n", e.getKey(), e.getValue() & 0xFFFFFF));
    }
    return css.append("}\n").toString();
  }
}
