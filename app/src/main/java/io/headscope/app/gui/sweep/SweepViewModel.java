package io.headscope.app.gui.sweep;

import io.headscope.analysis.ablation.AblationCsv;
import io.headscope.analysis.ablation.AblationTable;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
import io.headscope.app.render.figure.Figure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.analysis.ablation.HeadImportance;
import io.headscope.analysis.ablation.ImportanceResult;
import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.store.SafeFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The ablation sweep screen: every head (and every layer) switched off alone on the current input,
 * through the ablation service ({@link AblationSweep}) on the worker, drawn layer by layer as it goes,
 * with counts, time left and Cancel (what was swept is kept, marked partial).
 *
 * <p>What the sweep measures is decided in ONE place: the session's followed target
 * ({@link Session#targetProperty()}), which only the predictions panel edits (the word, the contrast and
 * its "Sweep:" choice of log P, P or logit difference). Null there means the intact model's top token.
 * The screen's own "Show" list used to offer "the followed target" beside "the intact top token" and
 * decided on its own; with "Sweep: logit difference" chosen under Predictions, a run from this screen
 * still measured the top token (issue 31). That entry is gone: the list now picks only which column of
 * the one run to draw (the measured Δ, accuracy, KL) or the gradient importance, which does not depend
 * on a followed word. The words stay in the predictions panel because the choice means nothing without
 * them; a second editor of the same state here would need its own word fields.
 *
 * <p>The shown result remembers what it was computed for (target, contrast, kind, switch-off mode,
 * input); when the choice moves away from that, {@link #staleProperty()} says so and why, and the view
 * crosses the map out and asks for a rerun, rather than showing old numbers under a new label.
 */
public final class SweepViewModel extends ScreenModel<AblationResult> {

  /** Which effect the heatmap shows. */
  public enum Metric {
    /** The Δ of what the sweep measures (the followed target, or the intact top token's log-prob). */
    MEASURE("Δ the measure chosen under Predictions"),
    ACCURACY("Δ accuracy"),
    KL("KL(intact ‖ off)"),
    IMPORTANCE("gradient importance (Michel et al.)");

    private final String label;

    Metric(String label) {
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  private final ReadOnlyObjectWrapper<ImportanceResult> importance = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyBooleanWrapper partial = new ReadOnlyBooleanWrapper();
  private final ObjectProperty<Metric> metric = new SimpleObjectProperty<>(Metric.MEASURE);
  private final ReadOnlyStringWrapper input = new ReadOnlyStringWrapper("");
  private final ReadOnlyStringWrapper caption = new ReadOnlyStringWrapper("");
  private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper("");
  private final ReadOnlyStringWrapper chosenWords = new ReadOnlyStringWrapper("");
  private final ReadOnlyBooleanWrapper stale = new ReadOnlyBooleanWrapper();
  private final ReadOnlyStringWrapper staleReason = new ReadOnlyStringWrapper("");
  /** The target the shown result follows (null: the intact top token). */
  private TargetMetric followed;
  private String followedWords = "";
  /** The tokens the shown sweep ran on, joined (importance runs set {@link #input} too). */
  private String sweptSentence = "";
  private Encoding shownInput;

  /** The text the shown sweep was run on, as typed. */
  private record Encoding(String a, String b) {}

  public SweepViewModel(Session session) {
    super(session,
        "Switches each head off alone, then each layer, and measures the masked-LM prediction.");
    metric.addListener((o, a, b) -> update());
    session.maskProperty().addListener((o, a, b) -> update());
    session.targetProperty().addListener((o, a, b) -> update());
    session.traceProperty().addListener((o, a, b) -> update());
    result.addListener((o, a, b) -> update());
    importance.addListener((o, a, b) -> update());
    update();
  }

  /**
   * What a run would measure now, in words ("logit her − him", "log-prob of the intact top token"):
   * the session's followed target, the one place that decides it.
   */
  public ReadOnlyStringProperty chosenWordsProperty() {
    return chosenWords.getReadOnlyProperty();
  }

  /**
   * What the shown result was computed for, for the screen's heading and the figure: the metric, the
   * target and contrast, the switch-off mode ("" before a run).
   */
  public ReadOnlyStringProperty titleProperty() {
    return title.getReadOnlyProperty();
  }

  /**
   * Whether the shown result was computed for another measure (kind, target or contrast), switch-off
   * mode or input than the one now chosen: its numbers do not answer the current choice until rerun.
   */
  public ReadOnlyBooleanProperty staleProperty() {
    return stale.getReadOnlyProperty();
  }

  /** Why the shown result is stale, for the line over it ("" when it is not). */
  public ReadOnlyStringProperty staleReasonProperty() {
    return staleReason.getReadOnlyProperty();
  }

  /** The gradient importance of the current input, once run. */
  public ReadOnlyObjectProperty<ImportanceResult> importanceProperty() {
    return importance.getReadOnlyProperty();
  }

  /** Whether the shown sweep was cancelled part-way (the layers not swept are blank). */
  public ReadOnlyBooleanProperty partialProperty() {
    return partial.getReadOnlyProperty();
  }

  /** The sentence the shown result belongs to. */
  public ReadOnlyStringProperty inputProperty() {
    return input.getReadOnlyProperty();
  }

  /** What the map shows and what its colours mean, for the metric and mode chosen. */
  public ReadOnlyStringProperty captionProperty() {
    return caption.getReadOnlyProperty();
  }

  public ObjectProperty<Metric> metricProperty() {
    return metric;
  }

  /** Whether there is something to draw for the metric chosen. */
  public boolean hasValues() {
    return metric.get() == Metric.IMPORTANCE ? importance.get() != null : result.get() != null;
  }

  /** Runs what the chosen metric needs on the current input, in the current switch-off mode. */
  public void run() {
    if (noInputOrBusy()) {
      return;
    }
    BertModel m = session.model();
    AttentionTrace t = session.trace();
    if (!m.hasMaskedLmHead()) {
      session.fail(new HeadScopeException(
          "The sweep measures masked-LM predictions, and " + m.name() + " has no masked-LM head."));
      return;
    }
    String sentence = String.join(" ", t.tokens());
    if (metric.get() == Metric.IMPORTANCE) {
      runImportance(m, t, sentence);
      return;
    }
    // the one place that decides what is measured (see the class comment)
    TargetMetric target = session.target();
    var options = new AblationSweep.Options(session.mask().mode(), true, 0);
    if (target != null) {
      options = options.following(target);
    }
    AblationSweep.Options o = options;
    int variants = t.layers() * (t.heads() + 1);
    AtomicReference<AblationResult> latest = new AtomicReference<>();
    long started = System.nanoTime();
    int[] layersDone = {0};
    result.set(null);
    partial.set(false);
    followed = target;
    followedWords = words(m, target);
    String[] typed = session.inputText();
    shownInput = new Encoding(typed[0].isEmpty() ? sentence : typed[0], typed[1]);
    sweptSentence = sentence;
    input.set(sentence);
    job.task("Sweeping " + variants + " variants…",
        p -> new AblationSweep(m).run(List.of(t.encoding()), o, p::update, p::isCancelled, (soFar, done, layers) -> {
          latest.set(soFar);
          layersDone[0] = done;
        }))
        .progress(0)
        .onSuccess(r -> {
          result.set(r);
          partial.set(false);
          update();
          // "accuracy" said what it counts, as the figure does (issue 40): the share of probed positions where
          // the followed word (or the intact top token) is the most probable token
          return String.format(Locale.ROOT, "%d variants, %d position(s) probed; intact %s %.3f; %s is the most "
              + "probable token at %.0f%% of them. Click a cell to view the head.", variants, r.positions(),
              words(m, target), r.baselineLogprob(), targetWords(), 100 * r.baselineAccuracy());
        })
        .onFailure(e -> "Sweep failed.")
        .onCancel(() -> {
          AblationResult soFar = latest.get();
          if (soFar == null) {
            return "Sweep cancelled before the first layer; nothing was swept.";
          }
          result.set(soFar);
          partial.set(true);
          update();
          return String.format(Locale.ROOT, "Sweep cancelled: partial, %d of %d layers (%d of %d variants) kept.",
              layersDone[0], soFar.layers(), layersDone[0] * (soFar.heads() + 1), variants);
        })
        .onProgress(() -> {
          // on the UI thread after each layer: draw what is done, count, and estimate the rest
          AblationResult soFar = latest.get();
          if (soFar != null && job.isRunning()) {
            result.set(soFar);
            int done = layersDone[0];
            double seconds = (System.nanoTime() - started) / 1e9;
            double left = done == 0 ? Double.NaN : seconds / done * (soFar.layers() - done);
            job.say(String.format(Locale.ROOT, "%d / %d variants · about %.0f s left", done * (soFar.heads() + 1),
                variants, left));
          }
        })
        .start();
  }

  private void runImportance(BertModel m, AttentionTrace t, String sentence) {
    importance.set(null);
    input.set(sentence);
    job.task("Computing the gradient of the " + lossName() + " with respect to every head's switch…",
        p -> new HeadImportance(m).run(List.of(t.encoding()), 0, p::update, p::isCancelled))
        .onSuccess(r -> {
          importance.set(r);
          update();
          return String.format(Locale.ROOT, "Gradient importance of %d heads; " + lossName() + " %.3f nats.",
              r.importance().length * r.importance()[0].length, r.meanLoss());
        })
        .onFailure(e -> "Importance failed.")
        .onCancel("Importance cancelled; nothing changed.")
        .start();
  }

  @Override
  protected void clear() {
    super.clear();
    importance.set(null);
    partial.set(false);
    followed = null;
    followedWords = "";
    // the old model's input line goes too ("Input: [CLS] …" over an empty map)
    input.set("");
    sweptSentence = "";
    shownInput = null;
    update();
  }

  /** A measure in words: the followed target's, or the default one for null. */
  private String words(BertModel m, TargetMetric t) {
    if (t == null || m == null) {
      return t == null ? defaultWords(session) : "the followed target";
    }
    // the same words as the Predictions panel's "Sweep:" choice (TargetMetric.words): one name for one metric
    return TargetMetric.words(t.kind(), m.tokenizer().vocabToken(t.target()).strip(),
        t.hasContrast() ? m.tokenizer().vocabToken(t.contrast()).strip() : null);
  }

  /** The words of the default measure on the current model and input. */
  public static String defaultWords(Session session) {
    return io.headscope.app.gui.screen.DefaultMeasure.words(session);
  }

  private static String modeWords(HeadMask.Mode mode) {
    return mode == HeadMask.Mode.ZERO ? "zero (× 0)" : "uniform (even rows)";
  }

  /** Recomputes what depends on the choice and on the shown result: the words, the title, staleness, the caption. */
  private void update() {
    chosenWords.set(words(session.model(), session.target()));
    AblationResult r = result.get();
    boolean importanceShown = metric.get() == Metric.IMPORTANCE;
    if (importanceShown) {
      title.set(importance.get() == null ? "" : "Head importance: |∂ loss / ∂ m_h| of the " + lossName());
    } else if (r == null) {
      title.set("");
    } else {
      // always the measure the run computed, and the column drawn when it is another one of the same run
      title.set("Ablation sweep: Δ " + followedWords + measuredFor(followed) + ", switch-off " + modeWords(r.mode())
          + (partial.get() ? " (partial)" : "") + (metric.get() == Metric.MEASURE ? "" : "; shown: " + metric.get()));
    }
    // gradient importance follows no target, so only the sweep's result can go stale
    String why = "";
    if (!importanceShown && r != null) {
      if (!java.util.Objects.equals(followed, session.target())) {
        why = "computed for Δ " + followedWords + ", now chosen under Predictions: Δ " + chosenWords.get();
      } else if (r.mode() != session.mask().mode()) {
        why = "computed with switch-off " + modeWords(r.mode()) + ", now chosen: " + modeWords(session.mask().mode());
      } else if (session.trace() != null && !sweptSentence.equals(String.join(" ", session.trace().tokens()))) {
        why = "computed on another input";
      }
    }
    staleReason.set(why.isEmpty() ? "" : "Stale: " + why + ". Run again to measure it.");
    stale.set(!why.isEmpty());
    updateCaption();
    publish();
  }

  /**
   * Offers the shown numbers to the ranking of heads in the main window: the most helpful heads first for
   * a signed Δ (removing them lowered it most), the largest change first for KL and importance. A stale
   * or empty result is taken back.
   */
  private void publish() {
    if (!hasValues() || stale.get() || session.model() == null) {
      session.withdraw(MEASURE_SOURCE);
      return;
    }
    int layers = session.model().config().numHiddenLayers();
    int heads = session.model().config().numAttentionHeads();
    double[][] v = new double[layers][heads];
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        v[l][h] = value(l, h);
      }
    }
    session.publish(new io.headscope.app.gui.session.HeadMeasure(MEASURE_SOURCE, metricLabel() + " (Sweep)", v,
        !signed()));
  }

  /** The source name of the numbers this screen publishes on the session. */
  static final String MEASURE_SOURCE = "sweep";

  /** " (target cat, contrast dog)" for a followed target, "" for the default measure. */
  private String measuredFor(TargetMetric t) {
    BertModel m = session.model();
    if (t == null || m == null) {
      return "";
    }
    return " (target " + m.tokenizer().vocabToken(t.target())
        + (t.hasContrast() ? ", contrast " + m.tokenizer().vocabToken(t.contrast()) : "") + ")";
  }

  private void updateCaption() {
    AblationResult r = result.get();
    // the mode of the numbers shown, not of the next run (they differ when the result is stale)
    String mode = modeWords(r == null ? session.mask().mode() : r.mode());
    Metric mt = metric.get();
    String shown = r == null ? chosenWords.get() : followedWords;
    // a causal model (GPT-2) has no mask: it is measured at its next tokens (MlmProbe)
    boolean causal = session.model() != null && !session.model().config().family().masked();
    String what = switch (mt) {
      case MEASURE -> (TargetMetric.isDefault(shown)
          ? (causal ? "Δ log-probability of each sampled token (15% of them) predicted from the tokens before it"
              : "Δ log-probability of the intact model's top token at each [MASK] (original tokens at a 15% sample without one)")
          : "Δ " + shown + (causal ? " as the next token" : " at the [MASK]s")) + ", head off − intact. Red: removing the head lowered it (the head "
          + "helped); blue: raised it. What is measured is chosen under Predictions (Follow a word, Sweep:).";
      case ACCURACY -> "Δ share of probed positions where " + (TargetMetric.isDefault(shown)
          ? TargetMetric.defaultToken(shown) : "the target") + " is the top token. Red: removing the head lowered it; blue: raised it.";
      case KL -> "KL(intact ‖ head off) of the predicted distribution: larger = the prediction changed more "
          + "(no sign: change, not harm).";
      case IMPORTANCE -> "|∂ loss / ∂ m_h| of the " + lossName() + " (Michel et al. 2019), normalised within each layer: "
          + "larger = the prediction leans on the head more. One backward pass; no switch-off mode.";
    };
    caption.set(what + (mt == Metric.IMPORTANCE ? "" : "  Switch-off mode: " + mode + ".")
        + (partial.get() && mt != Metric.IMPORTANCE ? "  Partial: the sweep was cancelled; blank layers were not swept." : ""));
  }

  /** The value of a cell under the current metric (NaN before it is measured); {@code head == -1} is the whole layer. */
  public double value(int layer, int head) {
    if (metric.get() == Metric.IMPORTANCE) {
      ImportanceResult r = importance.get();
      return head < 0 || r == null ? Double.NaN : r.normalized()[layer][head];
    }
    AblationResult r = result.get();
    if (r == null) {
      return Double.NaN;
    }
    if (head < 0) {
      return switch (metric.get()) {
        case MEASURE -> r.layerDeltaLogprob(layer);
        case ACCURACY -> r.layerDeltaAccuracy(layer);
        case KL -> r.layerKl()[layer];
        case IMPORTANCE -> Double.NaN;
      };
    }
    return switch (metric.get()) {
      case MEASURE -> r.deltaLogprob(layer, head);
      case ACCURACY -> r.deltaAccuracy(layer, head);
      case KL -> r.headKl()[layer][head];
      case IMPORTANCE -> Double.NaN;
    };
  }

  /** Whether the metric is signed (drawn on the diverging scale). */
  public boolean signed() {
    return metric.get() != Metric.KL && metric.get() != Metric.IMPORTANCE;
  }

  /** For the status line under the pointer. */
  public String describe(int layer, int head) {
    double v = value(layer, head);
    if (Double.isNaN(v)) {
      return hasValues() ? "not measured (the sweep was cancelled before this layer)" : "";
    }
    String what = head < 0 ? "layer " + (layer + 1) + " (all heads)" : "head " + new Head(layer, head);
    return String.format(Locale.ROOT, metric.get() == Metric.IMPORTANCE ? "%s: %s = %.4f" : "%s off: %s = %+.4f",
        what, metricLabel(), v);
  }

  /** Clicking a head's cell selects it in the main view. */
  public void select(int layer, int head) {
    if (head >= 0) {
      session.select(new Head(layer, head));
    }
  }

  /** The sweep as a figure for a paper ({@link SweepFigures}). */
  public Figure figure() {
    AblationResult r = result.get();
    // the mode the numbers were computed with, which a stale result may not share with the next run
    HeadMask.Mode m = r == null ? session.mask().mode() : r.mode();
    String mode = m == HeadMask.Mode.ZERO ? "zero: attention × 0" : "uniform: even rows";
    return SweepFigures.of(this, session.model() == null ? "" : session.model().name(), mode);
  }

  /**
   * What the shown result's top-1 share counts: the intact model's top token (the default measure) or the
   * followed target word, quoted.
   */
  String targetWords() {
    BertModel m = session.model();
    if (followed == null || m == null) {
      return TargetMetric.defaultToken(followedWords);
    }
    return "\u201c" + m.tokenizer().vocabToken(followed.target()).strip() + "\u201d";
  }

  /**
   * The loss gradient importance differentiates: the masked-LM loss of a masked model, the next-token loss
   * of a causal one (GPT-2).
   */
  String lossName() {
    BertModel m = session.model();
    return m == null || m.config().family().masked() ? "masked-LM loss" : "next-token loss";
  }

  /** The label of the shown metric, with the words of what the shown result measured. */
  String metricLabel() {
    if (metric.get() != Metric.MEASURE) {
      return metric.get().toString();
    }
    return "Δ " + (result.get() == null ? chosenWords.get() : followedWords);
  }

  /** What the CSV export writes: the shown sweep and what it was measured on (taken on the UI thread). */
  public record Csv(AblationResult result, AblationCsv.Sweep about) {}

  /**
   * The {@code ablate} CSV of the shown sweep and its sidecar's facts: model, input, pair, metric,
   * target and contrast, partial.
   */
  public Csv csv() {
    AblationResult r = result.get();
    if (r == null) {
      throw new HeadScopeException("Run the ablation sweep first.");
    }
    BertModel m = session.model();
    String target = followed == null ? null : m.tokenizer().vocabToken(followed.target());
    String contrast = followed == null || !followed.hasContrast() ? null : m.tokenizer().vocabToken(followed.contrast());
    return new Csv(r, new AblationCsv.Sweep(m.name(), shownInput == null ? input.get() : shownInput.a(),
        shownInput == null || shownInput.b().isEmpty() ? null : shownInput.b(), null, target, contrast, 0, partial.get()));
  }

  /**
   * Writes the CSV through the same table and writer as {@code ablate} (a partial sweep: the layers it
   * measured), and beside it the sidecar {@code X.csv.json} as the CLI writes it.
   */
  public static void writeCsv(Csv csv, Path file) {
    AblationTable table = AblationTable.of(csv.result());
    SafeFiles.writeAtomically(file, true, out -> AblationCsv.ablation(table, out));
    Path sidecar = file.resolveSibling(file.getFileName() + ".json");
    SafeFiles.writeAtomically(sidecar, true, out -> AblationCsv.metadata(csv.result(), csv.about(), out));
  }
}
