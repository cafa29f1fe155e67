package io.headscope.app.gui.head;

import io.headscope.app.render.HeadMatrix.Display;
import io.headscope.app.render.HeadMatrix.PairFilter;
import io.headscope.app.render.HeadMatrix;
import io.headscope.model.AttentionTrace;
import io.headscope.model.Head;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.value.ObservableValue;

/**
 * The head view's state: which quantity and which segment pair to show for the selected head, the
 * matrix that results, and what is under the pointer. Derived from the main view model's trace and
 * selection; computing a matrix is cheap array work, so it runs here, not on the worker.
 */
public final class HeadViewModel {
  private final ObservableValue<AttentionTrace> trace;
  private final ObservableValue<Head> head;
  private final ObjectProperty<Display> display = new SimpleObjectProperty<>(Display.WEIGHTS);
  private final ObjectProperty<PairFilter> filter = new SimpleObjectProperty<>(PairFilter.ALL);
  private final ReadOnlyObjectWrapper<HeadMatrix> matrix = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyBooleanWrapper pair = new ReadOnlyBooleanWrapper();
  private final ReadOnlyStringWrapper hover = new ReadOnlyStringWrapper("");
  private final ReadOnlyIntegerWrapper hoveredToken = new ReadOnlyIntegerWrapper(-1);

  public HeadViewModel(ObservableValue<AttentionTrace> trace, ObservableValue<Head> head) {
    this.trace = trace;
    this.head = head;
    trace.addListener((o, a, b) -> update());
    head.addListener((o, a, b) -> update());
    display.addListener((o, a, b) -> update());
    filter.addListener((o, a, b) -> update());
    update();
  }

  private void update() {
    AttentionTrace t = trace.getValue();
    Head h = head.getValue();
    pair.set(t != null && t.encoding().isPair());
    if (t == null || h == null || h.layer() >= t.layers() || h.head() >= t.heads()) {
      matrix.set(null);
      return;
    }
    matrix.set(HeadMatrix.of(t, h, display.get(), filter.get()));
    hover.set("");
  }

  /** Weights or norm-weighted attention (user choice). */
  public ObjectProperty<Display> displayProperty() {
    return display;
  }

  /** Segment pair shown (user choice; ignored for a single sentence). */
  public ObjectProperty<PairFilter> filterProperty() {
    return filter;
  }

  public ReadOnlyObjectProperty<HeadMatrix> matrixProperty() {
    return matrix.getReadOnlyProperty();
  }

  /** Whether the input is a pair (the view enables the pair filter). */
  public ReadOnlyBooleanProperty pairProperty() {
    return pair.getReadOnlyProperty();
  }

  /** The value under the pointer with both tokens named. */
  public ReadOnlyStringProperty hoverProperty() {
    return hover.getReadOnlyProperty();
  }

  /** The token (index into the input) whose lines the line drawing highlights, or -1. */
  public ReadOnlyIntegerProperty hoveredTokenProperty() {
    return hoveredToken.getReadOnlyProperty();
  }

  /** The pointer is over cell (row, col) of the matrix, or outside it (negative). */
  public void pointAt(int row, int col) {
    HeadMatrix m = matrix.get();
    hover.set(m == null ? "" : m.describe(row, col));
  }

  /** The pointer is over a token of the line drawing (index into the input), or -1. */
  public void pointAtToken(int token) {
    hoveredToken.set(token);
    AttentionTrace t = trace.getValue();
    HeadMatrix m = matrix.get();
    if (t == null || m == null || token < 0 || token >= t.tokens().size()) {
      hover.set("");
      return;
    }
    int row = token - m.rowOffset();
    if (row < 0 || row >= m.rows()) {
      hover.set("");
      return;
    }
    int best = 0;
    for (int j = 1; j < m.cols(); j++) {
      if (m.values()[row][j] > m.values()[row][best]) {
        best = j;
      }
    }
    hover.set(String.format(java.util.Locale.ROOT, "%s  \"%s\" attends most to \"%s\" (%.3f)",
        m.head(), t.tokens().get(token), m.colTokens().get(best), m.values()[row][best]));
  }
}
