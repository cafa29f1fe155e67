package io.headscope.app.gui.session;

import io.headscope.analysis.favor.FavorHeads;
import io.headscope.app.gui.exec.Worker;
import io.headscope.app.render.MapsShown;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.RunRequest;
import java.util.Set;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;

/**
 * What every screen shares: the loaded model, the traces of the current input (intact and with heads
 * switched off), the switches, the selected head and the picked heads, the worker that runs model
 * calls, and the latest error. The main view model writes the model, traces and switches; any screen
 * may select a head or report an error. No controls, no dialogs: the app shows errors
 * (through its DialogService).
 */
public final class Session {
  private final Worker worker;
  private final ReadOnlyObjectWrapper<BertModel> model = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<TwoStacks> twoStacks = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<AttentionTrace> trace = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<AttentionTrace> ablated = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<HeadMask> mask = new ReadOnlyObjectWrapper<>(HeadMask.NONE);
  private final ReadOnlyObjectWrapper<FavorHeads> favor = new ReadOnlyObjectWrapper<>(FavorHeads.NONE);
  /** The FAVOR+ heads the current with-switches trace ran with (its head mask it carries itself). */
  private FavorHeads ablatedFavor = FavorHeads.NONE;
  private final ReadOnlyObjectWrapper<Head> selected = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<Set<Head>> selection = new ReadOnlyObjectWrapper<>(Set.of());
  private final ReadOnlyObjectWrapper<String> error = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<TargetMetric> target = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<InputSaliency> saliency = new ReadOnlyObjectWrapper<>();
  private final ObjectProperty<MapsShown> mapsShown = new SimpleObjectProperty<>(MapsShown.INTACT);
  private final BooleanProperty wordsShown = new SimpleBooleanProperty(false);
  private String[] inputText = {"", ""};
  private final javafx.collections.ObservableMap<String, HeadMeasure> measures =
      javafx.collections.FXCollections.observableMap(new java.util.LinkedHashMap<>());
  /** One read-only view for good: it holds its listeners only as long as it lives itself. */
  private final javafx.collections.ObservableMap<String, HeadMeasure> measuresView =
      javafx.collections.FXCollections.unmodifiableObservableMap(measures);

  public Session(Worker worker) {
    this.worker = worker;
  }

  /** Runs every model call (one at a time: a model serves one call at a time). */
  public Worker worker() {
    return worker;
  }

  public ReadOnlyObjectProperty<BertModel> modelProperty() {
    return model.getReadOnlyProperty();
  }

  public BertModel model() {
    return model.get();
  }

  /**
   * The per-head numbers the screens have published (by source, in order of first publication): what
   * the main window can rank heads by besides the built-in scores. A new model withdraws them all.
   */
  public javafx.collections.ObservableMap<String, HeadMeasure> measures() {
    return measuresView;
  }

  /** Offers a screen's per-head numbers to the ranking, replacing that screen's previous ones. */
  public void publish(HeadMeasure m) {
    measures.put(m.source(), m);
  }

  /** Takes a screen's numbers back (its result is gone or no longer describes the model). */
  public void withdraw(String source) {
    measures.remove(source);
  }

  public void setModel(BertModel m) {
    if (m != model.get()) {
      measures.clear();
      saliency.set(null); // another model's scores say nothing of this one
    }
    model.set(m);
  }

  /**
   * The loaded encoder-decoder and the maps shown of it, or null for a single-stack model. While it is set
   * the single-stack model is null, and the traces hold the shown kind's maps (target x source for cross).
   */
  public ReadOnlyObjectProperty<TwoStacks> twoStacksProperty() {
    return twoStacks.getReadOnlyProperty();
  }

  public TwoStacks twoStacks() {
    return twoStacks.get();
  }

  public void setTwoStacks(TwoStacks t) {
    twoStacks.set(t);
  }

  /** The intact model's trace of the current input (all heads on). */
  public ReadOnlyObjectProperty<AttentionTrace> traceProperty() {
    return trace.getReadOnlyProperty();
  }

  public AttentionTrace trace() {
    return trace.get();
  }

  /** The trace with the switched-off heads applied (the same object as the trace when none is off). */
  public ReadOnlyObjectProperty<AttentionTrace> ablatedProperty() {
    return ablated.getReadOnlyProperty();
  }

  /** The trace with heads off, or null. */
  public AttentionTrace ablated() {
    return ablated.get();
  }

  /**
   * Which maps the grid and the head view show: intact, as run with the switched-off heads, or the
   * difference (a person's choice; with every head on the three agree, and the difference is zero).
   */
  public ObjectProperty<MapsShown> mapsShownProperty() {
    return mapsShown;
  }

  /**
   * Whether the grid, the head view and the attention export show word-level maps (Clark's conversion
   * over the typed text's {@code ##} pieces) rather than wordpiece maps (a person's choice).
   */
  public BooleanProperty wordsShownProperty() {
    return wordsShown;
  }

  public boolean wordsShown() {
    return wordsShown.get();
  }

  /** The trace whose maps are on screen (the as-run one for a difference): what an export writes. */
  public AttentionTrace shownTrace() {
    return mapsShown.get() == MapsShown.INTACT || ablated.get() == null ? trace.get() : ablated.get();
  }

  /** The text of the traces' input as typed: sentence a and sentence b ("" for a single sentence). */
  public String[] inputText() {
    return inputText.clone();
  }

  /**
   * The typed input as one text, sentence b after sentence a: what the causal screens (Patching, Circuits) run
   * as their clean input when none is typed on the screen itself.
   */
  public String inputAsOneText() {
    return inputText[1].isBlank() ? inputText[0] : inputText[0] + " " + inputText[1];
  }

  /** Sets both traces of one input together, with the text they were made from. */
  public void setTraces(AttentionTrace intact, AttentionTrace withHeadsOff, String a, String b) {
    setTraces(intact, withHeadsOff, FavorHeads.NONE, a, b);
  }

  /**
   * Sets both traces of one input together, with the text they were made from and the FAVOR+ heads the
   * second ran with (besides its head mask).
   */
  public void setTraces(AttentionTrace intact, AttentionTrace withSwitches, FavorHeads favorUsed, String a,
      String b) {
    inputText = new String[] {a == null ? "" : a, b == null ? "" : b};
    ablatedFavor = favorUsed;
    setTraces(intact, withSwitches);
  }

  /**
   * {@code request} with the interventions the with-switches trace ran with (its heads off, its heads on
   * FAVOR+), so a further reading of the same input (a followed target) sees the same model.
   */
  public RunRequest withSwitchesOfAblated(RunRequest request) {
    AttentionTrace off = ablated.get();
    BertModel m = model.get();
    if (off == null || m == null || off == trace.get()) {
      return request;
    }
    RunRequest r = off.mask().isEmpty() ? request : request.intervene(Intervention.heads(off.mask(), m.config()));
    return ablatedFavor.applyTo(m, r);
  }

  /** The FAVOR+ heads the current with-switches trace ran with. */
  public FavorHeads ablatedFavor() {
    return ablatedFavor;
  }

  /**
   * Heads to run on FAVOR+ instead of softmax (the Linear attention screen's toggle); the next traces use
   * it, as they use the head mask.
   */
  public ReadOnlyObjectProperty<FavorHeads> favorProperty() {
    return favor.getReadOnlyProperty();
  }

  public FavorHeads favor() {
    return favor.get();
  }

  public void setFavor(FavorHeads f) {
    favor.set(f);
  }

  /** Sets both traces of one input together (the FAVOR+ heads of the second are those of the last call that named them). */
  public void setTraces(AttentionTrace intact, AttentionTrace withHeadsOff) {
    trace.set(intact);
    ablated.set(withHeadsOff);
  }

  /** The heads switched off and how (the next traces use it). */
  public ReadOnlyObjectProperty<HeadMask> maskProperty() {
    return mask.getReadOnlyProperty();
  }

  public HeadMask mask() {
    return mask.get();
  }

  public void setMask(HeadMask m) {
    mask.set(m);
  }

  /** The head the head view and panels show. */
  public ReadOnlyObjectProperty<Head> selectedProperty() {
    return selected.getReadOnlyProperty();
  }

  public Head selected() {
    return selected.get();
  }

  public void select(Head h) {
    selected.set(h);
  }

  /** Heads picked with Ctrl-click for switching several at once. */
  public ReadOnlyObjectProperty<Set<Head>> selectionProperty() {
    return selection.getReadOnlyProperty();
  }

  public Set<Head> selection() {
    return selection.get();
  }

  public void setSelection(Set<Head> heads) {
    selection.set(Set.copyOf(heads));
  }

  /**
   * The contrast a person follows at the {@code [MASK]}s (picked in the predictions panel: a target
   * token, optionally a contrast token, and how to measure them), or null to follow the intact model's
   * top token. It alone decides what the ablation sweep measures (issue 31: the Sweep screen once had
   * its own second choice, which disagreed with this one); only the predictions panel sets it.
   */
  public ReadOnlyObjectProperty<TargetMetric> targetProperty() {
    return target.getReadOnlyProperty();
  }

  public TargetMetric target() {
    return target.get();
  }

  public void setTarget(TargetMetric t) {
    target.set(t);
  }

  /** The latest problem, as one line for a person; {@link #acknowledgeError()} clears it. */
  /**
   * The latest token saliency computed on this session's model (the Logit lens screen publishes it), with the
   * input it was for: kept when the input changes, so that a reader can say it is stale rather than lose it.
   */
  public ReadOnlyObjectProperty<InputSaliency> saliencyProperty() {
    return saliency.getReadOnlyProperty();
  }

  public InputSaliency saliency() {
    return saliency.get();
  }

  public void setSaliency(InputSaliency s) {
    saliency.set(s);
  }

  public ReadOnlyObjectProperty<String> errorProperty() {
    return error.getReadOnlyProperty();
  }

  /** Reports a problem from any screen (model call, sweep, corpus run, export). */
  public void fail(Throwable e) {
    error.set(message(e));
  }

  public void acknowledgeError() {
    error.set(null);
  }

  /** A one-line message: a HeadScopeException's own text, anything else named as unexpected. */
  public static String message(Throwable e) {
    Throwable c = e;
    while (!(c instanceof HeadScopeException) && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof HeadScopeException) {
      return c.getMessage();
    }
    return "Unexpected error: " + e;
  }
}
