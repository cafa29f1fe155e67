package io.headscope.app.gui.head;

import io.headscope.analysis.neuron.NeuronView;
import io.headscope.app.gui.session.Session;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;

/**
 * The head view's neuron view (BertViz's): the selected head on the current input for one query token, its
 * q, each key's k and their product, the scores and the softmax ({@link NeuronView}, the intact model).
 * It runs the model once per head, input and query, on the worker, and only while its tab is shown.
 */
public final class NeuronViewModel {
  private final Session session;
  private final IntegerProperty query = new SimpleIntegerProperty(-1);
  private final BooleanProperty shown = new SimpleBooleanProperty(false);
  private final ReadOnlyObjectWrapper<NeuronView> view = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyStringWrapper note = new ReadOnlyStringWrapper("");
  private long asked;

  public NeuronViewModel(Session session) {
    this.session = session;
    session.traceProperty().addListener((o, a, b) -> {
      query.set(defaultQuery(b));
      update();
    });
    session.selectedProperty().addListener((o, a, b) -> update());
    session.twoStacksProperty().addListener((o, a, b) -> {
      if (b == null) {
        note.set("");
      }
      update();
    });
    query.addListener((o, a, b) -> update());
    shown.addListener((o, a, b) -> update());
    query.set(defaultQuery(session.trace()));
  }

  /** The first [MASK] (the words asked about), else the first token after [CLS]. */
  static int defaultQuery(AttentionTrace t) {
    if (t == null) {
      return -1;
    }
    int mask = t.tokens().indexOf("[MASK]");
    return mask >= 0 ? mask : Math.min(1, t.tokens().size() - 1);
  }

  /** The query token (0-based position). */
  public IntegerProperty queryProperty() {
    return query;
  }

  /** Whether the neuron view is on screen: it runs the model only then. */
  public BooleanProperty shownProperty() {
    return shown;
  }

  public ReadOnlyObjectProperty<NeuronView> viewProperty() {
    return view.getReadOnlyProperty();
  }

  /** What the view shows, or why it shows nothing. */
  public ReadOnlyStringProperty noteProperty() {
    return note.getReadOnlyProperty();
  }

  private void update() {
    BertModel m = session.model();
    AttentionTrace t = session.trace();
    Head h = session.selected();
    int q = query.get();
    if (session.twoStacks() != null) {
      // nothing of a previous single-stack model stays: the line says why there is no neuron view
      view.set(null);
      note.set(io.headscope.app.gui.session.TwoStacks.refusal(session.twoStacks()).replace("this screen",
          "the neuron view"));
      return;
    }
    if (m == null || t == null || h == null || q < 0 || q >= t.tokens().size() || !shown.get()) {
      if (t == null || h == null) {
        view.set(null);
      }
      return;
    }
    NeuronView now = view.get();
    if (now != null && now.head().equals(h) && now.query() == q && now.tokens().equals(t.tokens())) {
      return;
    }
    long ticket = ++asked;
    note.set("Reading head " + h + "'s q and k for \u201c" + t.tokens().get(q) + "\u201d…");
    session.worker().submit(p -> NeuronView.of(m, t.encoding(), h, q), v -> {
      if (ticket == asked) {
        view.set(v);
        note.set(describe(v));
      }
    }, e -> note.set("Could not read the head: " + Session.message(e)));
  }

  static String describe(NeuronView v) {
    int best = 0;
    for (int j = 1; j < v.softmax().length; j++) {
      if (v.softmax()[j] > v.softmax()[best]) {
        best = j;
      }
    }
    return String.format(java.util.Locale.ROOT, "Head %s, query \u201c%s\u201d (intact model): q · k / √%d per key, "
        + "then the softmax; it looks most at \u201c%s\u201d (%.3f). Click a token on the left to make it the query.",
        v.head(), v.tokens().get(v.query()), v.q().length, v.tokens().get(best), v.softmax()[best]);
  }
}
