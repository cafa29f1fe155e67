package io.headscope.app.gui.dialog;

import io.headscope.app.render.figure.Figure;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * What the app puts to the user in a window of its own (JabRef's DialogService): errors, help, one-line
 * questions, the file choosers and the exports. Screens get it injected, so no screen builds an Alert,
 * a FileChooser or an export job, and tests answer the file choosers.
 */
public interface DialogService {
  /** Says that something could not be done (one line for a person). */
  void showError(String message);

  /** Shows a page of text to read (help), without blocking the window. */
  default void showText(String title, String text) {
  }

  /** Shows a Markdown page (help) as formatted text, with its sections linked, without blocking the window. */
  default void showMarkdown(String title, String markdown) {
    showText(title, markdown);
  }

  /**
   * Asks for one line of text.
   *
   * @return the answer, stripped, or empty when the user cancelled or gave nothing
   */
  Optional<String> askText(String title, String header, String label, String initial);

  /** @return a file to read, or null when the user cancelled */
  Path openFile(String title);

  /** @return a folder, or null when the user cancelled */
  Path openFolder(String title);

  /**
   * Asks for a file, takes what goes in it now (on the FX thread: a copy of the state), then writes
   * it in the background; a failure shows the error and leaves nothing half-written.
   */
  <T> void export(String what, String ext, String name, Supplier<T> content, BiConsumer<T, Path> writer);

  /** Asks for a PNG or SVG file and writes the figure made now (PNG at 300 dpi, or less past the size limit). */
  void exportFigure(String name, Supplier<Figure> figure);
}
