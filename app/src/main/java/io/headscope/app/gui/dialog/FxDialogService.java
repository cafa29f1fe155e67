package io.headscope.app.gui.dialog;

import io.headscope.app.gui.style.Theme;
import java.util.Optional;
import java.util.function.Supplier;
import javafx.scene.control.Alert;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Dialog;
import javafx.stage.Window;

/** The app's dialogs, in the app's stylesheet, over its window: an Alert for errors, a question laid out in FXML. */
public final class FxDialogService implements DialogService {
  private final Supplier<Window> owner;

  /** @param owner the window the dialogs belong to (null before it is shown) */
  public FxDialogService(Supplier<Window> owner) {
    this.owner = owner;
  }

  @Override
  public void showError(String message) {
    Alert alert = new Alert(Alert.AlertType.ERROR, message);
    alert.setHeaderText("HeadScope could not do that");
    alert.setTitle("HeadScope");
    Theme.apply(alert);
    Window w = owner.get();
    if (w != null) {
      alert.initOwner(w);
    }
    alert.show();
  }

  @Override
  public void showText(String title, String text) {
    javafx.scene.control.TextArea area = new javafx.scene.control.TextArea(text);
    area.setEditable(false);
    area.setWrapText(true);
    area.setPrefSize(720, 520);
    area.setId("help-text");
    Alert alert = new Alert(Alert.AlertType.INFORMATION);
    alert.setTitle("HeadScope");
    alert.setHeaderText(title);
    alert.getDialogPane().setContent(area);
    alert.setResizable(true);
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
}
