package io.headscope.app.gui.screen;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.app.gui.session.Session;
import io.headscope.model.BertModel;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * A screen's "Follow WORD vs CONTRAST" fields: typed by a person, and filled from the word followed under
 * Predictions (the session's target) while they are empty, so a screen opened after choosing it there
 * follows the same word.
 */
public final class FollowedWords {
  private final Session session;
  private final StringProperty target = new SimpleStringProperty("");
  private final StringProperty contrast = new SimpleStringProperty("");

  public FollowedWords(Session session) {
    this.session = session;
    session.targetProperty().addListener((o, a, b) -> fill(b));
    fill(session.target());
  }

  private void fill(TargetMetric t) {
    BertModel m = session.model();
    if (t == null || m == null) {
      return;
    }
    if (target.get().isBlank()) {
      target.set(m.tokenizer().vocabToken(t.target()).strip());
    }
    if (contrast.get().isBlank() && t.hasContrast()) {
      contrast.set(m.tokenizer().vocabToken(t.contrast()).strip());
    }
  }

  /** The word followed (one wordpiece of the vocabulary), as typed. */
  public StringProperty targetProperty() {
    return target;
  }

  /** The contrast, as typed; empty: none. */
  public StringProperty contrastProperty() {
    return contrast;
  }
}
