package io.headscope.app.gui.screen;

import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The corpus files opened this session in any screen: a file opened on one screen is offered on every
 * {@link SourcePicker}, so a corpus is opened once.
 */
public final class Sources {
  private final ObservableList<CorpusSource> opened = FXCollections.observableArrayList();

  public ObservableList<CorpusSource> opened() {
    return opened;
  }

  /** Adds a file once (a second open of the same file does not list it twice). */
  public void add(CorpusSource s) {
    if (s != null && !opened.contains(s)) {
      opened.add(s);
    }
  }
}
