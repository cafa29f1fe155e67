package io.headscope.app.gui.predict;

import io.headscope.app.gui.session.Session;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import java.util.List;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;

/**
 * The predictions panel's state: per {@code [MASK]}, the top tokens of the intact model and with the
 * switched-off heads; and the classifier's probabilities, both ways. Follows the session's traces.
 */
public final class PredictionsViewModel {
  private final Session session;
  private final ReadOnlyListWrapper<PredictionRow> predictions =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyListWrapper<ClassRow> classes = new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyStringWrapper emptyHint = new ReadOnlyStringWrapper();

  public PredictionsViewModel(Session session) {
    this.session = session;
    // the session sets the intact trace first, then the one with heads off: both are new by then
    session.ablatedProperty().addListener((o, a, b) -> refresh());
    session.modelProperty().addListener((o, a, b) -> refresh());
    refresh();
  }

  public ReadOnlyListProperty<PredictionRow> predictionsProperty() {
    return predictions.getReadOnlyProperty();
  }

  public ReadOnlyListProperty<ClassRow> classesProperty() {
    return classes.getReadOnlyProperty();
  }

  /** What the panel says when there is nothing to show (it depends on the model). */
  public ReadOnlyStringProperty emptyHintProperty() {
    return emptyHint.getReadOnlyProperty();
  }

  private void refresh() {
    AttentionTrace intact = session.trace();
    AttentionTrace off = session.ablatedProperty().get();
    BertModel m = session.model();
    emptyHint.set(m != null && !m.hasMaskedLmHead()
        ? "This model has no masked-LM head." : "Put [MASK] in the sentence to see what the model predicts there.");
    if (intact == null || off == null || m == null) {
      predictions.clear();
      classes.clear();
      return;
    }
    predictions.setAll(PredictionRow.of(intact, off));
    classes.setAll(ClassRow.of(intact, off, m.hasClassifier() ? m.classLabels() : List.of()));
  }
}
