package io.headscope.app.gui.dialog;

import io.headscope.app.gui.fxml.ViewLoader;
import javafx.application.Platform;
import javafx.fxml.FXML;
import javafx.scene.control.DialogPane;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;

/** The content of a one-line question: a header, a label and the answer field (layout in FXML). */
final class TextQuestionPane extends DialogPane {
  @FXML private Label label;
  @FXML private TextField answer;

  TextQuestionPane(String header, String label, String initial) {
    ViewLoader.load(this);
    setHeaderText(header);
    this.label.setText(label);
    answer.setText(initial);
    // the answer is what one types first
    Platform.runLater(answer::requestFocus);
  }

  String answer() {
    return answer.getText();
  }
}
