package io.headscope.app.gui.fxml;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Map;
import javafx.fxml.FXMLLoader;

/**
 * Loads a view's layout from the FXML file named after its class, beside it in the resources
 * ({@code sweep/SweepView.java} -> {@code sweep/SweepView.fxml}), with the view as both the
 * {@code fx:root} and the controller: the layout lives in FXML, bindings and custom drawing in Java.
 */
public final class ViewLoader {
  private ViewLoader() {}

  public static void load(Object view) {
    load(view, Map.of());
  }

  /**
   * @param parts views made in Java (they need their view models) that the layout places by name:
   *     {@code <fx:reference source="grid"/>}
   */
  public static void load(Object view, Map<String, Object> parts) {
    String name = view.getClass().getSimpleName() + ".fxml";
    URL url = view.getClass().getResource(name);
    if (url == null) {
      throw new IllegalStateException("No layout " + name + " beside " + view.getClass().getName());
    }
    FXMLLoader loader = new FXMLLoader(url);
    loader.setRoot(view);
    loader.setController(view);
    loader.getNamespace().putAll(parts);
    // the class loader of the app, so FXML can name our own controls (Canvas panes, charts)
    loader.setClassLoader(view.getClass().getClassLoader());
    try {
      loader.load();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the layout " + name, e);
    }
  }
}
