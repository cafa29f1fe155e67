package io.headscope.app.gui.dialog;

import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.style.Theme;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.FigureFile;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.scene.control.Alert;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Dialog;
import javafx.stage.Window;

/**
 * The app's dialogs, in the app's stylesheet, over its window: an Alert for errors, a question laid out
 * in FXML, the file choosers of a {@link FileAsker} (tests put in their own), and exports written one
 * at a time by a background job.
 */
public final class FxDialogService implements DialogService {
  private final Supplier<Window> owner;
  private final BackgroundJob exports;
  private final Consumer<Throwable> fail;
  private final Consumer<String> note;
  private FileAsker files;

  /**
   * @param owner the window the dialogs belong to (null before it is shown)
   * @param exports the job that writes exports, one at a time
   * @param fail hears a failure to make what goes in a file (the session shows it)
   * @param note hears a line for the status bar
   */
  private java.util.function.BooleanSupplier plain = () -> false;

  public FxDialogService(Supplier<Window> owner, BackgroundJob exports, Consumer<Throwable> fail,
      Consumer<String> note) {
    this.owner = owner;
    this.exports = exports;
    this.fail = fail;
    this.note = note;
    this.files = new DialogFileAsker(owner);
  }

  /** Replaces the file choosers (UI tests answer them with fixed paths). */
  public void setFileAsker(FileAsker f) {
    files = f;
  }

  public FileAsker files() {
    return files;
  }

  @Override
  public void showError(String message) {
    Alert alert = new Alert(Alert.AlertType.ERROR, message);
    alert.setHeaderText("HeadScope could not do that");
    show(alert);
  }

  @Override
  public void showText(String title, String text) {
    javafx.scene.control.TextArea area = new javafx.scene.control.TextArea(text);
    area.setEditable(false);
    area.setWrapText(true);
    area.setPrefSize(720, 520);
    area.setId("help-text");
    Alert alert = new Alert(Alert.AlertType.INFORMATION);
    alert.setHeaderText(title);
    alert.getDialogPane().setContent(area);
    alert.setResizable(true);
    show(alert);
  }

  @Override
  public void showMarkdown(String title, String markdown) {
    javafx.scene.control.ScrollPane page = new MarkdownView(markdown).node();
    // Fits a 1280 x 800 screen with the window's frame around it; resizable for more.
    page.setPrefSize(900, 600);
    page.setId("help-page");
    Alert alert = new Alert(Alert.AlertType.INFORMATION);
    alert.setHeaderText(title);
    alert.setGraphic(null);
    alert.getDialogPane().setContent(page);
    alert.setResizable(true);
    show(alert);
  }

  private void show(Alert alert) {
    alert.setTitle("HeadScope");
    Theme.apply(alert);
    Window w = owner.get();
    if (w != null) {
      alert.initOwner(w);
    }
    alert.show();
  }

  @Override
  public Optional<String> askText(String title, String header, String label, String initial) {
    TextQuestionPane pane = new TextQuestionPane(header, label, initial);
    Dialog<String> ask = new Dialog<>();
    ask.setDialogPane(pane);
    ask.setTitle(title);
    ask.setResultConverter(button -> button == ButtonType.OK ? pane.answer() : null);
    Theme.apply(ask);
    Window w = owner.get();
    if (w != null) {
      ask.initOwner(w);
    }
    return ask.showAndWait().map(String::strip).filter(s -> !s.isEmpty());
  }

  @Override
  public Path openFile(String title) {
    return files.openFile(title);
  }

  @Override
  public Path openFolder(String title) {
    return files.openFolder(title);
  }

  @Override
  public void exportFigure(String name, Supplier<Figure> figure) {
    boolean bare = plain.getAsBoolean();
    Path p = files.save(bare ? "Export plain figure (PNG at 300 dpi, or SVG; the caption beside it as .txt)"
        : "Export figure (PNG at 300 dpi, or SVG)", List.of("png", "svg"), name + ".png");
    write(p, figure, (full, file) -> {
      Figure f = bare ? full.plain() : full;
      double scale = Math.min(FigureFile.DPI_300, FigureFile.MAX_SIDE / Math.max(f.width(), f.height()));
      FigureFile.write(f, file, FigureFile.Format.of(file), scale);
      if (bare) {
        FigureFile.writeCaption(f, file);
      }
    });
  }

  /** Whether figures are exported plain: no title, notes or input; the caption beside them as text. */
  public void setPlainFigures(java.util.function.BooleanSupplier plain) {
    this.plain = plain;
  }

  @Override
  public <T> void export(String what, String ext, String name, Supplier<T> content, BiConsumer<T, Path> writer) {
    write(files.save("Export " + what, ext, name), content, writer);
  }

  /**
   * Takes what goes in the file on the FX thread, then writes it off it. Nothing to take (null) goes to
   * the writer all the same: each writer says, as its command does, what to run first.
   */
  private <T> void write(Path p, Supplier<T> content, BiConsumer<T, Path> writer) {
    if (p == null) {
      return;
    }
    T data;
    try {
      data = content.get();
    } catch (RuntimeException ex) {
      fail.accept(ex);
      return;
    }
    writeInBackground(p, () -> writer.accept(data, p));
  }

  private void writeInBackground(Path p, Runnable write) {
    boolean started = exports.task("Writing " + p + "…", progress -> {
      write.run();
      return p;
    }).onSuccess(written -> {
      note.accept("Wrote " + written);
      return "Wrote " + written;
    }).onFailure(e -> "Could not write " + p).onCancel("Not written: " + p).start();
    if (!started) {
      note.accept("An export is still being written; try again when it is done.");
    }
  }
}
