package io.headscope.app.gui.predict;

import io.headscope.app.gui.session.Session;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.MaskPrediction;
import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
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
  private final ReadOnlyStringWrapper followHeading = new ReadOnlyStringWrapper("Follow a word at the [MASK]s");
  private final StringProperty targetWord = new SimpleStringProperty("");
  private final StringProperty contrastWord = new SimpleStringProperty("");
  private final ObjectProperty<TargetMetric.Kind> metric = new SimpleObjectProperty<>(TargetMetric.Kind.LOGPROB);
  private final ReadOnlyListWrapper<TargetRow> targetRows = new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyStringWrapper targetProblem = new ReadOnlyStringWrapper("");
  /** Counts target requests so an older answer never replaces a newer one. */
  private long targetGeneration;

  public PredictionsViewModel(Session session) {
    this.session = session;
    // the session sets the intact trace first, then the one with heads off: both are new by then
    session.ablatedProperty().addListener((o, a, b) -> refresh());
    session.modelProperty().addListener((o, a, b) -> refresh());
    session.twoStacksProperty().addListener((o, a, b) -> refresh());
    // the "Sweep:" choice is part of the session's followed target, the one thing that decides what the
    // sweep measures: a new choice is shared at once, with or without a view (it was the view's job, so a
    // choice made without the panel's view never reached the sweep)
    metric.addListener((o, a, b) -> follow());
    // with a contrast, log P(target) − log P(contrast) is the logit difference: one choice, one name (issue 40)
    contrastWord.addListener((o, a, b) -> offerMetrics());
    offerMetrics();
    refresh();
  }

  private final javafx.collections.ObservableList<TargetMetric.Kind> metrics = FXCollections.observableArrayList();

  /**
   * The measures the words typed allow: without a contrast log P and P of the target; with one the logit
   * difference and the difference of probabilities (log P would be the logit difference under another name).
   */
  private void offerMetrics() {
    boolean versus = contrastWord.get() != null && !contrastWord.get().isBlank();
    List<TargetMetric.Kind> now = versus ? List.of(TargetMetric.Kind.LOGIT_DIFF, TargetMetric.Kind.PROB)
        : List.of(TargetMetric.Kind.LOGPROB, TargetMetric.Kind.PROB);
    if (!metrics.equals(now)) {
      metrics.setAll(now);
    }
    if (!now.contains(metric.get())) {
      metric.set(now.get(0)); // log P <-> logit difference: the same first choice
    }
  }

  /** The measures offered for the words typed (see {@link #metricWords}). */
  public javafx.collections.ObservableList<TargetMetric.Kind> metricsOffered() {
    return FXCollections.unmodifiableObservableList(metrics);
  }

  /** A measure in the words the sweep's title uses: {@code log P(her)}, {@code logit her − him}. */
  public String metricWords(TargetMetric.Kind k) {
    if ((targetWord.get() == null || targetWord.get().isBlank()) && k == TargetMetric.Kind.LOGPROB) {
      // no word followed: the sweep measures the intact top token's log-prob, and says so in these words (issue
      // 40: "log P(target)" here beside a sweep titled by its metric)
      return io.headscope.app.gui.screen.DefaultMeasure.words(session);
    }
    String t = targetWord.get() == null || targetWord.get().isBlank() ? "target" : targetWord.get().strip();
    String c = contrastWord.get() == null ? "" : contrastWord.get().strip();
    return TargetMetric.words(k, t, c);
  }

  // --- the followed target ----------------------------------------------------------------

  /** The word to follow at the [MASK]s (a single wordpiece), or "" to follow nothing. */
  public StringProperty targetWordProperty() {
    return targetWord;
  }

  /** An optional contrast word: the panel then shows the logit difference target − contrast. */
  public StringProperty contrastWordProperty() {
    return contrastWord;
  }

  /**
   * What the sweep measures when it follows the target (log-prob, probability or logit difference). This
   * and the words are the only editor of what the sweep measures ({@link Session#targetProperty()}); the
   * Sweep screen reads it and marks a result computed for another choice stale.
   */
  public ObjectProperty<TargetMetric.Kind> metricProperty() {
    return metric;
  }

  /** The target at each [MASK], before → after. */
  public ReadOnlyListProperty<TargetRow> targetRowsProperty() {
    return targetRows.getReadOnlyProperty();
  }

  /** Why the target cannot be followed (not one wordpiece, no [MASK]…), or "". */
  public ReadOnlyStringProperty targetProblemProperty() {
    return targetProblem.getReadOnlyProperty();
  }

  /**
   * Follows the words typed (the view calls this after a typing pause or Enter): resolves them to
   * wordpieces, shares the choice with the sweep ({@link Session#setTarget}), and reads their
   * log-probabilities at every [MASK], intact and with the heads off, on the model's worker.
   */
  public void follow() {
    AttentionTrace intact = session.trace();
    AttentionTrace off = session.ablatedProperty().get();
    BertModel m = session.model();
    String t = targetWord.get() == null ? "" : targetWord.get().strip();
    String c = contrastWord.get() == null ? "" : contrastWord.get().strip();
    long gen = ++targetGeneration;
    targetRows.clear();
    targetProblem.set("");
    if (t.isEmpty()) {
      session.setTarget(null);
      return;
    }
    if (m == null || intact == null || off == null) {
      return;
    }
    if (!m.hasMaskedLmHead()) {
      targetProblem.set(m.name() + " has no masked-LM head.");
      session.setTarget(null);
      return;
    }
    TargetMetric tm;
    try {
      long[] tc = m.tokenizer().targetAndContrast(t, c.isEmpty() ? null : c);
      long target = tc[0];
      long contrast = tc[1];
      TargetMetric.Kind k = metric.get() == TargetMetric.Kind.LOGIT_DIFF && contrast < 0 ? TargetMetric.Kind.LOGPROB : metric.get();
      tm = new TargetMetric(k, target, contrast);
    } catch (HeadScopeException e) {
      targetProblem.set(e.getMessage());
      session.setTarget(null);
      return;
    }
    session.setTarget(tm);
    if (tm.kind() != metric.get()) {
      // say it rather than let the sweep's title be the first place the fallback shows
      targetProblem.set("The logit difference needs a contrast word: until one is typed, the sweep measures log P("
          + t + ").");
    }
    int[] positions = intact.predictions().stream().mapToInt(MaskPrediction::position).toArray();
    if (positions.length == 0) {
      String mask = maskWord(m);
      targetProblem.set("Put " + mask + " in the sentence: the target is followed at the " + mask + "s.");
      return;
    }
    session.worker().submit(p -> {
      float[][][] before = m.run(RunRequest.of(intact.encoding()).read(Readouts.none().withLogProbs(positions))).logProbs();
      float[][][] after = off == intact ? before : m.run(session.withSwitchesOfAblated(RunRequest.of(intact.encoding()))
          .read(Readouts.none().withLogProbs(positions))).logProbs();
      List<TargetRow> rows = new java.util.ArrayList<>();
      for (int i = 0; i < positions.length; i++) {
        rows.add(new TargetRow(t, tm.hasContrast() ? c : null, positions[i], before[0][i][(int) tm.target()],
            after[0][i][(int) tm.target()], tm.hasContrast() ? before[0][i][(int) tm.contrast()] : Double.NaN,
            tm.hasContrast() ? after[0][i][(int) tm.contrast()] : Double.NaN));
      }
      return rows;
    }, rows -> {
      if (gen == targetGeneration) {
        targetRows.setAll(rows);
      }
    }, e -> {
      if (gen == targetGeneration) {
        targetProblem.set(Session.message(e));
      }
    });
  }

  /** The model's own mask token as written, [MASK] before a model is loaded. */
  static String maskWord(BertModel m) {
    String own = m == null ? null : m.maskToken();
    return own == null ? "[MASK]" : own;
  }

  public ReadOnlyListProperty<PredictionRow> predictionsProperty() {
    return predictions.getReadOnlyProperty();
  }

  public ReadOnlyListProperty<ClassRow> classesProperty() {
    return classes.getReadOnlyProperty();
  }

  /** The heading over the followed word: at the model's own mask ("<mask>s"), or as a causal model's next token. */
  public ReadOnlyStringProperty followHeadingProperty() {
    return followHeading.getReadOnlyProperty();
  }

  /** What the panel says when there is nothing to show (it depends on the model). */
  public ReadOnlyStringProperty emptyHintProperty() {
    return emptyHint.getReadOnlyProperty();
  }

  private void refresh() {
    if (session.twoStacks() != null) {
      // an encoder-decoder: the next target token at each target position, before and after the switches
      followHeading.set("Follow a word: single stacks only");
      emptyHint.set("Type a source and a target: the next target token is predicted at each target position.");
      classes.clear();
      targetRows.clear();
      predictions.setAll(NextTargetRows.of(session.twoStacks()));
      return;
    }
    AttentionTrace intact = session.trace();
    AttentionTrace off = session.ablatedProperty().get();
    BertModel m = session.model();
    // the heading over the followed word names where it is read: the model's own mask, or the next token
    followHeading.set(m != null && m.maskToken() == null ? "Follow a word as the next token"
        : "Follow a word at the " + maskWord(m) + "s");
    // the model's own mask named (RoBERTa's <mask>); either spelling typed is read as it (MaskSpelling)
    emptyHint.set(m != null && !m.hasMaskedLmHead()
        ? "This model has no masked-LM head." : "Put " + maskWord(m) + " in the sentence to see what the model predicts "
            + "there" + (m != null && !"[MASK]".equals(m.maskToken()) && m.maskToken() != null ? " ([MASK] works too)." : "."));
    if (intact == null || off == null || m == null) {
      predictions.clear();
      classes.clear();
      targetRows.clear();
      return;
    }
    predictions.setAll(PredictionRow.of(intact, off));
    classes.setAll(ClassRow.of(intact, off, m.hasClassifier() ? m.classLabels() : List.of()));
    if (!targetWord.get().isBlank()) {
      follow(); // the same target on the new input or switches
    }
  }
}
