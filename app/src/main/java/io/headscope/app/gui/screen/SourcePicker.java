package io.headscope.app.gui.screen;

import java.nio.file.Path;
import java.util.List;
import javafx.beans.property.ObjectProperty;
import javafx.collections.ListChangeListener;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.layout.HBox;

/**
 * The one corpus picker: the shipped corpora (and what a screen puts first, such as the current input),
 * every file opened this session on any screen, and "Open file…". In FXML:
 * {@code <SourcePicker fx:id="sources" prefix="layers"/>} gives the ids {@code layers-source} and
 * {@code layers-open}.
 */
public final class SourcePicker extends HBox {
  /** What the file chooser says a corpus is. */
  public static final String CORPUS = "A corpus: UTF-8 text, one input per line, a TAB between the sentences of a pair";
  private final ChoiceBox<CorpusSource> choice = new ChoiceBox<>();
  private final Button open = new Button("Open file…");
  private String prefix = "";

  public SourcePicker() {
    super(6);
    setAlignment(Pos.CENTER_LEFT);
    open.setMinWidth(USE_PREF_SIZE);
    getChildren().addAll(choice, open);
  }

  /** The start of the ids of the choice and the button. */
  public String getPrefix() {
    return prefix;
  }

  public void setPrefix(String p) {
    prefix = p;
    choice.setId(p + "-source");
    open.setId(p + "-open");
  }

  /**
   * Fills the choice and keeps it in step with the files opened anywhere.
   *
   * @param value the screen's chosen corpus, both ways
   * @param first what the screen offers before the shipped corpora (the current input), or none
   */
  public void bind(ScreenContext context, ObjectProperty<CorpusSource> value, List<CorpusSource> first) {
    choice.getItems().setAll(first);
    choice.getItems().addAll(CorpusSource.SHIPPED);
    context.sources().opened().forEach(this::offer);
    context.sources().opened().addListener((ListChangeListener<CorpusSource>) c -> c.getList().forEach(this::offer));
    choice.valueProperty().bindBidirectional(value);
    open.setOnAction(e -> {
      Path p = context.dialogs().openFile(CORPUS);
      if (p != null) {
        CorpusSource s = CorpusSource.file(p);
        context.sources().add(s);
        offer(s);
        value.set(s);
      }
    });
  }

  private void offer(CorpusSource s) {
    if (!choice.getItems().contains(s)) {
      choice.getItems().add(s);
    }
  }
}
