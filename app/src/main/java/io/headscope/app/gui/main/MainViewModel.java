package io.headscope.app.gui.main;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.gui.exec.Worker;
import io.headscope.app.gui.predict.ClassRow;
import io.headscope.app.gui.predict.PredictionRow;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.Head;
import io.headscope.model.HeadMask;
import io.headscope.model.HeadScopeException;
import io.headscope.model.store.ModelRepository;
import io.headscope.model.tokenizer.Encoding;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;

/**
 * The main screen's state: the loaded model, the input, the traces (intact and with heads switched
 * off), the selected head and the switches. Holds no controls; every model call goes through the
 * {@link Worker} and changes state only when it has finished, and only if no newer request replaced it.
 */
public final class MainViewModel {
  static final int TOP_K = 5;

  private final Worker worker;
  private final ModelRepository repository;

  private final ReadOnlyObjectWrapper<BertModel> model = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyStringWrapper modelName = new ReadOnlyStringWrapper("no model");
  private final ReadOnlyIntegerWrapper layers = new ReadOnlyIntegerWrapper();
  private final ReadOnlyIntegerWrapper heads = new ReadOnlyIntegerWrapper();
  private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper();
  private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
  private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(0);
  private final ReadOnlyObjectWrapper<String> error = new ReadOnlyObjectWrapper<>();

  private final StringProperty textA = new SimpleStringProperty("");
  private final StringProperty textB = new SimpleStringProperty("");

  private final ReadOnlyObjectWrapper<AttentionTrace> trace = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<AttentionTrace> ablated = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<HeadMask> mask = new ReadOnlyObjectWrapper<>(HeadMask.NONE);
  private final ReadOnlyObjectWrapper<Head> selected = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<Set<Head>> selection = new ReadOnlyObjectWrapper<>(Set.of());
  private final ReadOnlyListWrapper<PredictionRow> predictions =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyListWrapper<HeadScore> scores = new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyObjectWrapper<Set<HeadPattern>> shownCategories =
      new ReadOnlyObjectWrapper<>(Set.of(HeadPattern.values()));
  private final HeadClassifier classifier = new HeadClassifier();
  private final ReadOnlyListWrapper<ClassRow> classes = new ReadOnlyListWrapper<>(FXCollections.observableArrayList());

  /** Counts requests so a slow, older result never overwrites a newer one. */
  private long generation;
  private List<HeadScore> cachedScores;

  /** What one analysis run hands back to the FX thread. */
  private record Analysis(AttentionTrace intact, AttentionTrace ablated, List<HeadScore> scores) {}
  private int pending;

  public MainViewModel(Worker worker, ModelRepository repository) {
    this.worker = worker;
    this.repository = repository;
  }

  // --- read-only state -------------------------------------------------------------------

  public ReadOnlyObjectProperty<BertModel> modelProperty() {
    return model.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty modelNameProperty() {
    return modelName.getReadOnlyProperty();
  }

  public ReadOnlyIntegerProperty layersProperty() {
    return layers.getReadOnlyProperty();
  }

  public ReadOnlyIntegerProperty headsProperty() {
    return heads.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty busyProperty() {
    return busy.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty statusProperty() {
    return status.getReadOnlyProperty();
  }

  /** 0..1 during a long step, -1 when its length is unknown. */
  public ReadOnlyDoubleProperty progressProperty() {
    return progress.getReadOnlyProperty();
  }

  /** The latest error for a dialog; {@link #acknowledgeError()} clears it. */
  public ReadOnlyObjectProperty<String> errorProperty() {
    return error.getReadOnlyProperty();
  }

  /** The sentence (segment a); the view debounces typing before calling {@link #analyse()}. */
  public StringProperty textAProperty() {
    return textA;
  }

  /** The optional second sentence (segment b). */
  public StringProperty textBProperty() {
    return textB;
  }

  /** The intact model's trace of the current input (all heads on). */
  public ReadOnlyObjectProperty<AttentionTrace> traceProperty() {
    return trace.getReadOnlyProperty();
  }

  /** The trace with the switched-off heads applied (the same object as the trace when none is off). */
  public ReadOnlyObjectProperty<AttentionTrace> ablatedProperty() {
    return ablated.getReadOnlyProperty();
  }

  public ReadOnlyObjectProperty<HeadMask> maskProperty() {
    return mask.getReadOnlyProperty();
  }

  public ReadOnlyObjectProperty<Head> selectedProperty() {
    return selected.getReadOnlyProperty();
  }

  /** Heads picked with ctrl-click for switching several at once. */
  public ReadOnlyObjectProperty<Set<Head>> selectionProperty() {
    return selection.getReadOnlyProperty();
  }

  public ReadOnlyListProperty<PredictionRow> predictionsProperty() {
    return predictions.getReadOnlyProperty();
  }

  public ReadOnlyListProperty<ClassRow> classesProperty() {
    return classes.getReadOnlyProperty();
  }

  /** Every head's Kovaleva category, scores and statistics on the intact trace (layer-major). */
  public ReadOnlyListProperty<HeadScore> scoresProperty() {
    return scores.getReadOnlyProperty();
  }

  /** The score of one head, or null before the first result. */
  public HeadScore score(Head h) {
    int i = h.layer() * heads.get() + h.head();
    return i < scores.size() ? scores.get(i) : null;
  }

  /** The categories the grid shows (the legend's filter); all at first. */
  public ReadOnlyObjectProperty<Set<HeadPattern>> shownCategoriesProperty() {
    return shownCategories.getReadOnlyProperty();
  }

  /** Shows or hides one category in the grid. */
  public void toggleCategory(HeadPattern p) {
    Set<HeadPattern> next = new java.util.TreeSet<>(shownCategories.get());
    if (!next.remove(p)) {
      next.add(p);
    }
    shownCategories.set(Set.copyOf(next));
  }

  public void showAllCategories() {
    shownCategories.set(Set.of(HeadPattern.values()));
  }

  /** Whether the grid shows this head under the category filter. */
  public boolean isShown(Head h) {
    HeadScore s = score(h);
    return s == null || shownCategories.get().contains(s.category());
  }

  /** The classifier's thresholds (the CSV export summarises the current input with them). */
  public io.headscope.analysis.heads.Thresholds thresholds() {
    return classifier.thresholds();
  }

  public Worker worker() {
    return worker;
  }

  /**
   * Whether an embedded model can be picked: its jar is on the class path, or the injected
   * repository already holds it converted (asking the repository, which knows its cache layout; for a
   * model not built in, {@code embedded} converts nothing and only checks the cache).
   */
  public boolean canLoad(ModelRepository.Embedded e) {
    if (e.isAvailable()) {
      return true;
    }
    try {
      repository.embedded(e, io.headscope.model.store.ProgressListener.NONE);
      return true;
    } catch (HeadScopeException notCached) {
      return false;
    }
  }

  // --- commands --------------------------------------------------------------------------

  /** Loads an embedded model by name or a Hugging Face folder; on failure the previous model stays. */
  public void loadModel(String spec) {
    long gen = ++generation;
    begin("Loading " + spec + "…", -1);
    worker.submit(p -> {
      p.update("Loading " + spec + "…", -1);
      var files = repository.resolve(spec, p::update);
      p.update("Reading the weights of " + files.name() + "…", -1);
      return BertModel.load(files);
    }, new Worker.Listener<BertModel>() {
      @Override
      public void progress(String message, double fraction) {
        status.set(message);
        progress.set(fraction);
      }

      @Override
      public void done(BertModel loaded) {
        end();
        BertModel old = model.get();
        model.set(loaded);
        modelName.set(loaded.name());
        layers.set(loaded.config().numHiddenLayers());
        heads.set(loaded.config().numAttentionHeads());
        mask.set(HeadMask.NONE.withMode(mask.get().mode()));
        selection.set(Set.of());
        selected.set(new Head(0, 0));
        trace.set(null);
        ablated.set(null);
        if (old != null) {
          worker.submit(pr -> {
            old.close();
            return null;
          }, r -> { }, e -> { });
        }
        status.set(loaded.name() + ": " + layers.get() + " layers × " + heads.get() + " heads"
            + (loaded.hasMaskedLmHead() ? "" : " (no masked-LM head: no predictions)"));
        if (gen == generation) {
          analyse();
        }
      }

      @Override
      public void failed(Throwable e) {
        end();
        fail(e);
      }
    });
  }

  /** Runs the model on the current input (intact, and with the switched-off heads). */
  public void analyse() {
    BertModel m = model.get();
    String a = textA.get() == null ? "" : textA.get().strip();
    String b = textB.get() == null ? "" : textB.get().strip();
    if (m == null) {
      return;
    }
    long gen = ++generation;
    if (a.isEmpty()) {
      trace.set(null);
      ablated.set(null);
      scores.clear();
      predictions.clear();
      classes.clear();
      status.set("Type a sentence above; use [MASK] to see predictions.");
      return;
    }
    HeadMask currentMask = mask.get();
    AttentionTrace cached = trace.get();
    List<HeadScore> cachedScores = this.cachedScores;
    begin("Running " + m.name() + "…", -1);
    worker.submit(p -> {
      Encoding enc = m.encode(a, b.isEmpty() ? null : b);
      AttentionTrace intact = cached != null && sameInput(cached, enc, m) ? cached : m.trace(enc, HeadMask.NONE, TOP_K);
      AttentionTrace off = currentMask.isEmpty() ? intact : m.trace(enc, currentMask, TOP_K);
      // the categories describe the intact maps, so they are computed once per input
      List<HeadScore> sc = intact == cached && cachedScores != null ? cachedScores : classifier.classifyAll(intact);
      return new Analysis(intact, off, sc);
    }, res -> {
      AttentionTrace[] r = {res.intact(), res.ablated()};
      end();
      if (gen != generation) {
        return;
      }
      this.cachedScores = res.scores();
      scores.setAll(res.scores());
      trace.set(r[0]);
      ablated.set(r[1]);
      predictions.setAll(PredictionRow.of(r[0], r[1]));
      classes.setAll(ClassRow.of(r[0], r[1], m.hasClassifier() ? m.classLabels() : List.of()));
      Encoding e = r[0].encoding();
      status.set(e.length() + " tokens" + (e.wasTruncated()
          ? "; " + e.droppedWordpieces() + " wordpieces cut to fit " + m.config().maxPositionEmbeddings() + " positions"
          : "") + (currentMask.isEmpty() ? "" : "; " + currentMask.off().size() + " heads off ("
          + currentMask.mode().name().toLowerCase(java.util.Locale.ROOT) + ")"));
    }, e -> {
      end();
      if (gen == generation) {
        fail(e);
      }
    });
  }

  private static boolean sameInput(AttentionTrace t, Encoding e, BertModel m) {
    return t.model().equals(m.name()) && java.util.Arrays.equals(t.encoding().ids(), e.ids())
        && java.util.Arrays.equals(t.encoding().segments(), e.segments());
  }

  /** Shows this head in the head view and the panels. */
  public void select(Head h) {
    selected.set(h);
  }

  /** Adds or removes a head from the multi-selection (ctrl-click). */
  public void toggleInSelection(Head h) {
    Set<Head> next = new TreeSet<>(selection.get());
    if (!next.remove(h)) {
      next.add(h);
    }
    selection.set(Set.copyOf(next));
    selected.set(h);
  }

  public void clearSelection() {
    selection.set(Set.of());
  }

  /** Switches one head off, or back on. */
  public void toggleHead(Head h) {
    setMask(mask.get().toggled(h));
  }

  /**
   * Switches the given heads: off if any of them is on, else all back on (so the same key undoes it).
   * With nothing multi-selected, acts on the selected head.
   */
  public void toggleSelectedHeads() {
    Set<Head> heads = selection.get().isEmpty() && selected.get() != null ? Set.of(selected.get()) : selection.get();
    toggleAll(heads);
  }

  /** Switches a whole layer (0-based) off, or back on when it is already all off. */
  public void toggleLayer(int layer) {
    Set<Head> layerHeads = new TreeSet<>();
    for (int h = 0; h < heads.get(); h++) {
      layerHeads.add(new Head(layer, h));
    }
    toggleAll(layerHeads);
  }

  private void toggleAll(Collection<Head> hs) {
    if (hs.isEmpty()) {
      return;
    }
    Set<Head> next = new TreeSet<>(mask.get().off());
    if (next.containsAll(hs)) {
      next.removeAll(hs);
    } else {
      next.addAll(hs);
    }
    setMask(new HeadMask(next, mask.get().mode()));
  }

  public void switchAllOn() {
    setMask(new HeadMask(Set.of(), mask.get().mode()));
  }

  public void setMode(HeadMask.Mode mode) {
    setMask(mask.get().withMode(mode));
  }

  private void setMask(HeadMask next) {
    if (Objects.equals(next, mask.get())) {
      return;
    }
    mask.set(next);
    analyse();
  }

  /** A message in the status bar (e.g. a file written). */
  public void note(String message) {
    status.set(message);
  }

  public void acknowledgeError() {
    error.set(null);
  }

  /** Reports a problem from the view (e.g. an export) the same way as model errors. */
  public void fail(Throwable e) {
    error.set(message(e));
    status.set("Error: " + message(e));
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

  private void begin(String what, double fraction) {
    pending++;
    busy.set(true);
    status.set(what);
    progress.set(fraction);
  }

  private void end() {
    pending = Math.max(0, pending - 1);
    busy.set(pending > 0);
    progress.set(pending > 0 ? -1 : 0);
  }
}
