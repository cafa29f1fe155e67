package io.headscope.app.gui.main;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.gui.exec.Worker;
import io.headscope.analysis.favor.FavorHeads;
import io.headscope.app.gui.predict.ClassRow;
import io.headscope.app.gui.predict.PredictionRow;
import io.headscope.app.gui.predict.PredictionsViewModel;
import io.headscope.app.gui.session.Session;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.repository.ModelRepository;
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

  private final Session session;
  private final Worker worker;
  private final ModelRepository repository;

  private final ReadOnlyStringWrapper modelName = new ReadOnlyStringWrapper("no model");
  private final ReadOnlyIntegerWrapper layers = new ReadOnlyIntegerWrapper();
  private final ReadOnlyIntegerWrapper heads = new ReadOnlyIntegerWrapper();
  private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper();
  private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
  private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(0);
  private final ReadOnlyBooleanWrapper stale = new ReadOnlyBooleanWrapper();
  private final ReadOnlyStringWrapper inputNote = new ReadOnlyStringWrapper("");

  private final StringProperty textA = new SimpleStringProperty("");
  private final StringProperty textB = new SimpleStringProperty("");

  private final ReadOnlyListWrapper<HeadScore> scores = new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyObjectWrapper<Set<HeadPattern>> shownCategories =
      new ReadOnlyObjectWrapper<>(Set.of(HeadPattern.values()));
  private volatile HeadClassifier classifier = new HeadClassifier();
  private final javafx.beans.property.ObjectProperty<HeadClassifier.Method> method =
      new javafx.beans.property.SimpleObjectProperty<>(HeadClassifier.Method.DEFAULT);
  private final PredictionsViewModel predictions;
  private final io.headscope.app.gui.main.rank.RankViewModel rank;
  private final SwitchHistory history = new SwitchHistory();
  /** The window on an encoder-decoder (T5, BART), when one is loaded. */
  private final EncoderDecoderRuns twoStacks;
  /** Where named head sets are kept (the CLI reads the same file for {@code --disable @NAME}). */
  private java.nio.file.Path headSetsFile = io.headscope.model.store.HeadSets.standardFile();

  /** Counts requests so a slow, older result never overwrites a newer one. */
  private volatile long generation;
  /** The loads asked for: only the latest one's model is kept when two overlap. */
  private long loads;
  private List<HeadScore> cachedScores;

  /** What one analysis run hands back to the FX thread. */
  private record Analysis(AttentionTrace intact, AttentionTrace ablated, List<HeadScore> scores,
      io.headscope.model.HeadSummaries summaries) {}
  private int pending;

  public MainViewModel(Worker worker, ModelRepository repository) {
    this(new Session(worker), repository);
  }

  /** The main screen over a shared session; its model is loaded through {@code repository}. */
  public MainViewModel(Session session, ModelRepository repository) {
    this.session = session;
    this.worker = session.worker();
    this.repository = repository;
    this.predictions = new PredictionsViewModel(session);
    this.rank = new io.headscope.app.gui.main.rank.RankViewModel(session, scores.getReadOnlyProperty());
    this.twoStacks = new EncoderDecoderRuns(this, session);
    textA.addListener((o, a, b) -> markStale());
    textB.addListener((o, a, b) -> markStale());
    method.addListener((o, a, m) -> {
      classifier = new HeadClassifier(m);
      reclassify();
    });
    // heads put on FAVOR+ (the Linear attention screen) change the model as switching heads off does
    session.favorProperty().addListener((o, a, b) -> analyse());
    // "difference" with no head off and none on FAVOR+ is an empty map in every frame, which looks broken: once
    // the last switch is undone (or every head is on again) the maps go back to intact (issue 40)
    javafx.beans.InvalidationListener nothingOff = o -> {
      if (session.mask().isEmpty() && session.favor().isEmpty()
          && session.mapsShownProperty().get() == io.headscope.app.render.MapsShown.DIFFERENCE) {
        session.mapsShownProperty().set(io.headscope.app.render.MapsShown.INTACT);
      }
    };
    session.maskProperty().addListener(nothingOff);
    session.favorProperty().addListener(nothingOff);
    // any screen's error also shows in the status bar
    session.errorProperty().addListener((o, a, msg) -> {
      if (msg != null) {
        if (!status.get().startsWith(ERROR)) {
          statusBeforeError = status.get();
        }
        status.set(ERROR + msg);
      }
    });
    // a causal model reads one text: its Pair field is off (a pair typed before is dropped, not refused in a dialog)
    session.modelProperty().addListener((o, a, m) -> {
      boolean pairs = m == null || !m.config().family().causal();
      if (!pairs) {
        textB.set("");
      }
      pairRead.set(pairs);
    });
  }

  private final javafx.beans.property.BooleanProperty pairRead = new javafx.beans.property.SimpleBooleanProperty(true);

  /** Whether the open model reads a second sentence (not a causal model: it has no format for a pair). */
  public javafx.beans.property.ReadOnlyBooleanProperty pairReadProperty() {
    return pairRead;
  }

  private static final String ERROR = "Error: ";
  /** The status line an error replaced, back when another screen is shown. */
  private String statusBeforeError = "";

  /**
   * Another screen is shown: an error in the status bar belongs to the screen it came from (a Compare error
   * said nothing about the Sweep), so the line the error replaced comes back.
   */
  public void screenChanged() {
    if (status.get() != null && status.get().startsWith(ERROR)) {
      status.set(statusBeforeError);
    }
  }

  /** What the other screens (sweep, corpus, head view) share with this one. */
  public Session session() {
    return session;
  }

  // --- read-only state -------------------------------------------------------------------

  public ReadOnlyObjectProperty<BertModel> modelProperty() {
    return session.modelProperty();
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

  /**
   * True from an edit of the input until its result arrives: the window keeps showing the previous
   * result, marked as stale, and never blocks typing.
   */
  public ReadOnlyBooleanProperty staleProperty() {
    return stale.getReadOnlyProperty();
  }

  /**
   * What the input row says about how the input was read, or "": wordpieces cut to fit the model,
   * {@code [mask]} read as {@code [MASK]}, characters the vocabulary lacks ({@code [UNK]}).
   */
  public ReadOnlyStringProperty inputNoteProperty() {
    return inputNote.getReadOnlyProperty();
  }

  /** The latest error for a dialog; {@link #acknowledgeError()} clears it. */
  public ReadOnlyObjectProperty<String> errorProperty() {
    return session.errorProperty();
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
    return session.traceProperty();
  }

  /** The trace with the switched-off heads applied (the same object as the trace when none is off). */
  public ReadOnlyObjectProperty<AttentionTrace> ablatedProperty() {
    return session.ablatedProperty();
  }

  public ReadOnlyObjectProperty<HeadMask> maskProperty() {
    return session.maskProperty();
  }

  public ReadOnlyObjectProperty<Head> selectedProperty() {
    return session.selectedProperty();
  }

  /** Heads picked with ctrl-click for switching several at once. */
  public ReadOnlyObjectProperty<Set<Head>> selectionProperty() {
    return session.selectionProperty();
  }

  /** The ranking of heads above the grid (it follows the scores and the screens' published measures). */
  public io.headscope.app.gui.main.rank.RankViewModel rank() {
    return rank;
  }

  /** The predictions panel's view model (it follows the session's traces). */
  public PredictionsViewModel predictions() {
    return predictions;
  }

  public ReadOnlyListProperty<PredictionRow> predictionsProperty() {
    return predictions.predictionsProperty();
  }

  public ReadOnlyListProperty<ClassRow> classesProperty() {
    return predictions.classesProperty();
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

  /** The classifier in use (the CSV export summarises the current input with it). */
  public HeadClassifier classifier() {
    return classifier;
  }

  /**
   * How maps are sorted into categories: the learned model (default) or the threshold rule. Changing
   * it re-sorts the current input's heads (no model run: the scores and features are kept).
   */
  public javafx.beans.property.ObjectProperty<HeadClassifier.Method> methodProperty() {
    return method;
  }

  private void reclassify() {
    AttentionTrace intact = session.trace();
    if (intact == null) {
      return;
    }
    HeadClassifier c = classifier;
    io.headscope.model.BertModel m = modelProperty().get();
    if (m == null || !HeadClassifier.appliesTo(m)) {
      return;
    }
    worker.submit(p -> c.classifyAll(intact), sc -> {
      if (session.trace() == intact && c == classifier) {
        cachedScores = sc;
        scores.setAll(sc);
      }
    }, session::fail);
  }

  public Worker worker() {
    return worker;
  }

  /** Where models are resolved (the Compare screen opens its second model through it too). */
  public ModelRepository repository() {
    return repository;
  }

  /**
   * Every model that loads without the network: the built-in ones that are here (or cached), then the
   * Hugging Face models downloaded before.
   */
  public java.util.List<String> loadableModels() {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (ModelRepository.Embedded e : ModelRepository.Embedded.values()) {
      if (canLoad(e)) {
        out.add(e.modelName);
      }
    }
    out.addAll(repository.cachedHubModels());
    return out;
  }

  /** How to get a built-in model this install lacks (Markdown, for the Model menu's dialog). */
  public static String howToGet(ModelRepository.Embedded e) {
    return "## " + e.modelName + " is not built into this install\n\n"
        + "HeadScope builds bert-base-cased and bert-base-multilingual-cased in on request, from Maven Central "
        + "(about 1 GB more, once). Quit and start it so:\n\n"
        + "    HEADSCOPE_MODELS=all ./headscope\n\n"
        + "After that they load offline, as bert-base-uncased does, and stay built in for later plain runs. "
        + "Other ways to a second model:\n\n"
        + "- **Model › Hugging Face Hub…** with `google-bert/" + e.modelName + "` (or any BERT, RoBERTa, XLM-R, "
        + "DistilBERT, ELECTRA, ALBERT or GPT-2): downloaded once into the cache (safetensors only), then listed in "
        + "this menu and loaded offline.\n"
        + "- **Model › Open Hugging Face folder…**: a folder with `config.json`, `model.safetensors` and "
        + "`vocab.txt` or `tokenizer.json`.\n"
        + "- A fine-tuned copy of the model loaded now: `./headscope finetune --train FILE --out DIR` writes such a "
        + "folder; open it as above (README: Fine-tuning).\n";
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
    ++generation; // an input waiting to run was typed for the model before
    long load = ++loads;
    begin("Loading " + spec + "…", -1);
    worker.submit(p -> {
      p.update("Loading " + spec + "…", -1);
      var files = repository.resolve(spec, p::update);
      p.update("Reading the weights of " + files.name() + "…", -1);
      // an encoder-decoder (T5, BART) opens as one: its three kinds of maps in the grid and the head view
      return io.headscope.model.EncoderDecoderModel.describes(files)
          ? io.headscope.model.EncoderDecoderModel.load(files) : (AutoCloseable) BertModel.load(files);
    }, new Worker.Listener<AutoCloseable>() {
      @Override
      public void progress(String message, double fraction) {
        status.set(message);
        progress.set(fraction);
      }

      @Override
      public void done(AutoCloseable opened) {
        end();
        if (load != loads) {
          closeLater(opened); // a newer load was asked for while this one read its weights: that one stays
          return;
        }
        AutoCloseable old = session.model() != null ? session.model()
            : session.twoStacks() != null ? session.twoStacks().model() : null;
        closeLater(old);
        if (opened instanceof io.headscope.model.EncoderDecoderModel ed) {
          twoStacks.opened(ed);
          session.setMask(HeadMask.NONE.withMode(session.mask().mode()));
          history.clear();
          recentRuns.clear();
          session.setFavor(FavorHeads.NONE);
          session.setSelection(Set.of());
          session.select(new Head(0, 0));
          // always: an input typed while it loaded was run on the model before (a newer generation), not on this one
          analyse();
          return;
        }
        BertModel loaded = (BertModel) opened;
        session.setTwoStacks(null);
        session.setModel(loaded);
        modelName.set(loaded.name());
        layers.set(loaded.config().numHiddenLayers());
        heads.set(loaded.config().numAttentionHeads());
        session.setMask(HeadMask.NONE.withMode(session.mask().mode()));
        history.clear(); // the old model's switches mean nothing to this one
        recentRuns.clear();
        session.setFavor(FavorHeads.NONE);
        session.setSelection(Set.of());
        session.select(new Head(0, 0));
        session.setTraces(null, null);
        status.set(loaded.name() + ": " + layers.get() + " layers × " + heads.get() + " heads"
            + (loaded.hasMaskedLmHead() ? "" : " (no masked-LM head: no predictions)"));
        // always: an input typed while it loaded was run on the model before (and is dropped as older than
        // this run), not on this one
        analyse();
      }

      @Override
      public void failed(Throwable e) {
        end();
        fail(e);
      }
    });
  }

  /** From this many tokens on, a run reports each layer done (a short input's run takes well under a second). */
  static final int LAYER_PROGRESS_FROM = 128;

  /**
   * {@code r} with an identity edit at each layer's output that tells {@code done} how many layers are done:
   * the values are copied out and back unchanged (the maps are the same bits: {@code LayerProgressTest}); none
   * when {@code done} is null.
   */
  static io.headscope.model.engine.RunRequest reportingLayers(io.headscope.model.engine.RunRequest r, int layers,
      java.util.function.IntConsumer done) {
    if (done == null) {
      return r;
    }
    io.headscope.model.engine.RunRequest out = r;
    for (int l = 0; l < layers; l++) {
      int n = l + 1;
      out = out.intervene(new io.headscope.model.engine.Intervention.Edit(
          io.headscope.model.engine.HookPoint.residPost(l), a -> {
            done.accept(n);
            return a;
          }));
    }
    return out;
  }

  /** Runs the model on the current input (intact, and with the switched-off heads). */
  public void analyse() {
    BertModel m = session.model();
    String a = textA.get() == null ? "" : textA.get().strip();
    String b = textB.get() == null ? "" : textB.get().strip();
    if (session.twoStacks() != null) {
      twoStacks.analyse(a, b); // the source and the target
      return;
    }
    if (m == null) {
      return;
    }
    long gen = ++generation;
    if (a.isEmpty()) {
      session.setTraces(null, null);
      scores.clear();
      stale.set(false);
      inputNote.set("");
      status.set(b.isEmpty() ? "Type a sentence above; " + (m.maskToken() == null
              ? "the predictions are the token after it." : "use " + m.maskToken() + " to see predictions.")
          : "The first sentence is empty: a pair needs both (the second sentence is read after the first).");
      return;
    }
    // "[mask]" typed in lower case is not BERT's mask token (the tokenizer matches it exactly and an
    // uncased model would read "[ mask ]"): the app reads it as meant and says so
    // and a mask written as another family writes it ([MASK] for RoBERTa's <mask>) is read as the model's own
    String a0 = a;
    String b0 = b;
    String own = m.maskToken();
    a = InputText.masksAsOwn(a, own);
    b = InputText.masksAsOwn(b, own);
    String maskFixed = InputText.maskRead(a0 + " " + b0, own, m.name());
    String textForNote = a + " " + b;
    String first = a;
    String second = b;
    HeadMask currentMask = session.mask();
    FavorHeads currentFavor = session.favor();
    AttentionTrace cached = session.trace();
    AttentionTrace recentRun = currentFavor.isEmpty() ? recentRun(cached, currentMask) : null;
    List<HeadScore> cachedScores = this.cachedScores;
    begin("Running " + m.name() + "…" + (cached != null ? " (the faded maps are the previous input's until then)" : ""), -1);
    String waiting = cached != null ? " (the faded maps are the previous input's until then)" : "";
    worker.submit(p -> {
      if (gen != generation) {
        return null; // a newer input came while this one waited behind a long run: skip it
      }
      Encoding enc = m.encode(first, second.isEmpty() ? null : second);
      // a long input takes tens of seconds on a busy machine: each step says where the run is
      boolean intactDone = cached != null && sameInput(cached, enc, m);
      boolean asRunDone = currentMask.isEmpty() && currentFavor.isEmpty() || recentRun != null && intactDone;
      boolean scoresDone = !HeadClassifier.appliesTo(m) || intactDone && cachedScores != null;
      String on = m.name() + " on " + enc.length() + " tokens: ";
      int steps = (intactDone ? 0 : 1) + (asRunDone ? 0 : 1) + (scoresDone ? 0 : 1);
      int[] step = {0};
      java.util.function.Consumer<String> next = what -> {
        p.update("Running " + on + what + " (step " + (++step[0]) + " of " + steps + ")…" + waiting,
            (step[0] - 1) / (double) Math.max(1, steps));
      };
      // a long input's pass takes tens of seconds on a busy machine: it reports each layer done, with the
      // share of the whole run and the time left (the bar sat empty for 20 s in "step 1 of 2")
      int layers = m.config().numHiddenLayers();
      java.util.function.Function<String, java.util.function.IntConsumer> layerDone = what -> {
        long t0 = System.nanoTime();
        int at = step[0];
        return done -> {
          double seconds = (System.nanoTime() - t0) / 1e9;
          double left = seconds / done * (layers - done);
          p.update(String.format(java.util.Locale.ROOT, "Running %s%s (step %d of %d): layer %d of %d%s…%s", on, what,
              at, steps, done, layers, done < layers && seconds > 1 ? String.format(java.util.Locale.ROOT,
                  ", about %.0f s left in this step", left) : "", waiting),
              (at - 1 + done / (double) layers) / Math.max(1, steps));
        };
      };
      boolean report = enc.length() >= LAYER_PROGRESS_FROM;
      // the intact pass also gives each layer's norm map (the head view's "Layer norm" display)
      if (!intactDone) {
        next.accept("the intact model's maps");
      }
      java.util.function.IntConsumer intactLayers = report && !intactDone ? layerDone.apply("the intact model's maps")
          : null;
      // a model whose maps at this length would not fit at ease keeps summaries, its maps recomputed on demand
      boolean summaries = keepsSummaries(m, enc.length());
      AttentionTrace intact = intactDone ? cached : m.trace((summaries ? TraceRequest.of(enc).top(TOP_K).summaries()
          : TraceRequest.of(enc).top(TOP_K).layerNorms()).adjust(r -> reportingLayers(r, layers, intactLayers))).get(0);
      // the maps as the model ran them: downstream layers feel the switches, a head off shows what flowed on
      // (and with heads on FAVOR+, the maps they ran with and what the layers above made of them)
      String asRunWhat = "the maps with " + (currentMask.isEmpty() ? "FAVOR+ heads" : "heads switched off");
      if (!asRunDone) {
        next.accept(asRunWhat);
      }
      java.util.function.IntConsumer asRunLayers = report && !asRunDone ? layerDone.apply(asRunWhat) : null;
      AttentionTrace off = currentMask.isEmpty() && currentFavor.isEmpty() ? intact
          : recentRun != null && intact == cached ? recentRun
          : m.trace(withSwitches(TraceRequest.of(enc).mask(currentMask).top(TOP_K), summaries)
              .adjust(r -> reportingLayers(currentFavor.applyTo(m, r), layers, asRunLayers))).get(0);
      // the categories describe the intact maps, so they are computed once per input
      // a causal model's maps get no categories (HeadClassifier.appliesTo): the grid shows them uncoloured
      if (!scoresDone) {
        next.accept("the categories of " + m.config().numHiddenLayers() * m.config().numAttentionHeads() + " heads");
      }
      List<HeadScore> sc = !HeadClassifier.appliesTo(m) ? List.of()
          : intact == cached && cachedScores != null ? cachedScores : classifier.classifyAll(intact);
      // every head's numbers and thumbnail: kept by a trace of summaries, else computed here off the FX thread
      return new Analysis(intact, off, sc, intact.summaries(TraceRequest.DEFAULT_THUMBNAIL_SIDE));
    }, new Worker.Listener<Analysis>() {
      @Override
      public void progress(String message, double fraction) {
        if (gen == generation) {
          status.set(message);
          progress.set(fraction);
        }
      }

      @Override
      public void done(Analysis res) {
        analysed(res, new Asked(gen, a0, b0, first, second, currentMask, currentFavor, maskFixed, textForNote, m));
      }

      @Override
      public void failed(Throwable e) {
        end();
        if (gen == generation) {
          fail(e);
        }
      }
    });
  }

  /** What an analysis was asked for: the input as typed and as run, the switches, the model. */
  private record Asked(long gen, String a0, String b0, String first, String second, HeadMask currentMask,
      FavorHeads currentFavor, String maskFixed, String textForNote, BertModel m) {}

  /** Shows a finished analysis, unless a newer input came meanwhile. */
  /**
   * Below this many bytes of maps (layers x heads x T^2 floats) a run keeps every map, as it always did
   * (bert-base at 512 tokens: 151 MB); above it, a trace of summaries: thumbnails, per-head numbers and
   * each layer's queries and keys, a head's map recomputed when the head view opens it (issue 41: a 1B
   * model at 2,048 tokens has 11.8 GB of maps). {@code -Dheadscope.fullMapsUpTo=BYTES} moves the line.
   */
  static final long FULL_MAPS_UP_TO = Long.getLong("headscope.fullMapsUpTo", 256L << 20);

  static boolean keepsSummaries(BertModel m, int tokens) {
    long bytes = 4L * m.config().numHiddenLayers() * m.config().numAttentionHeads() * tokens * tokens;
    return bytes > FULL_MAPS_UP_TO;
  }

  /**
   * The with-switches run: its maps as run, or in a trace of summaries as computed (a summary keeps what
   * each head computed; the layers above still feel the switches).
   */
  private static TraceRequest withSwitches(TraceRequest r, boolean summaries) {
    return summaries ? r.summaries() : r.maps(AttentionTrace.Maps.AS_RUN);
  }

  /** The names of the per-head numbers every trace gives, published for the ranking above the grid. */
  public static final String SINK = "First token's share (attention sink)";
  public static final String ENTROPY = "Attention entropy (nats)";
  public static final String LARGEST = "Largest attention weight";
  /** An encoder-decoder's end token's share (the source of the measure; its name says the token). */
  public static final String END = "End token's share";

  /** Publishes the trace's per-head numbers (from its summaries) for the ranking. */
  private void publishSummaries(io.headscope.model.HeadSummaries s) {
    session.publish(new io.headscope.app.gui.session.HeadMeasure(SINK, SINK, widen(s.sink()), true));
    session.publish(new io.headscope.app.gui.session.HeadMeasure(ENTROPY, ENTROPY, widen(s.entropy()), false));
    session.publish(new io.headscope.app.gui.session.HeadMeasure(LARGEST, LARGEST, widen(s.maxWeight()), true));
    summaries.set(s);
  }

  private final javafx.beans.property.ReadOnlyObjectWrapper<io.headscope.model.HeadSummaries> summaries =
      new javafx.beans.property.ReadOnlyObjectWrapper<>();

  /** The current input's per-head summaries and thumbnails (null before the first input). */
  public javafx.beans.property.ReadOnlyObjectProperty<io.headscope.model.HeadSummaries> summariesProperty() {
    return summaries.getReadOnlyProperty();
  }

  private static double[][] widen(float[][] v) {
    double[][] out = new double[v.length][];
    for (int i = 0; i < v.length; i++) {
      out[i] = new double[v[i].length];
      for (int j = 0; j < v[i].length; j++) {
        out[i][j] = v[i][j];
      }
    }
    return out;
  }

  private void analysed(Analysis res, Asked q) {
    end();
    if (q.gen() != generation || res == null) {
      return;
    }
    AttentionTrace[] r = {res.intact(), res.ablated()};
    this.cachedScores = res.scores();
    if (q.currentFavor().isEmpty() && !q.currentMask().isEmpty()) {
      rememberRun(res.intact(), q.currentMask(), res.ablated());
    }
    scores.setAll(res.scores());
    session.setTraces(r[0], r[1], q.currentFavor(), q.first(), q.second());
    publishSummaries(res.summaries());
    // stale again at once if the text changed while this input ran (the next run is due)
    stale.set(!(q.a0().equals(strip(textA.get())) && q.b0().equals(strip(textB.get()))));
    Encoding e = r[0].encoding();
    inputNote.set(InputText.note(e, q.m().config().maxPositionEmbeddings(), q.maskFixed(), q.textForNote()));
    status.set(e.length() + " tokens" + (e.wasTruncated()
        ? "; " + e.droppedWordpieces() + " wordpieces cut to fit " + q.m().config().maxPositionEmbeddings() + " positions"
        : "") + (q.currentMask().isEmpty() ? "" : "; " + q.currentMask().off().size() + (q.currentMask().off().size() == 1 ? " head off (" : " heads off (")
        + q.currentMask().mode().name().toLowerCase(java.util.Locale.ROOT) + ")")
        + (q.currentFavor().isEmpty() ? "" : "; " + q.currentFavor().describe()));
  }

  /** A trace as run, kept so undo and redo come back at once instead of rerunning the model. */
  private record RecentRun(AttentionTrace intact, HeadMask mask, AttentionTrace asRun) {}

  /**
   * The last few traces as run on this input: undo after a slip on a long input is instant, not another
   * 30 s run. Few, because a 512-token trace of bert-base holds 144 maps of 262,144 cells (150 MB).
   */
  private final java.util.ArrayDeque<RecentRun> recentRuns = new java.util.ArrayDeque<>();
  static final int RECENT_RUNS = 2;

  private AttentionTrace recentRun(AttentionTrace intact, HeadMask mask) {
    for (RecentRun r : recentRuns) {
      if (r.intact() == intact && r.mask().equals(mask)) {
        return r.asRun();
      }
    }
    return null;
  }

  private void rememberRun(AttentionTrace intact, HeadMask mask, AttentionTrace asRun) {
    recentRuns.removeIf(r -> r.intact() != intact || r.mask().equals(mask));
    recentRuns.addFirst(new RecentRun(intact, mask, asRun));
    while (recentRuns.size() > RECENT_RUNS) {
      recentRuns.removeLast();
    }
  }

  private static String strip(String s) {
    return s == null ? "" : s.strip();
  }

  private void markStale() {
    stale.set(session.trace() != null);
  }

  private static boolean sameInput(AttentionTrace t, Encoding e, BertModel m) {
    return t.model().equals(m.name()) && java.util.Arrays.equals(t.encoding().ids(), e.ids())
        && java.util.Arrays.equals(t.encoding().segments(), e.segments());
  }

  // --- what the encoder-decoder window (EncoderDecoderRuns) sets here ----------------------

  /** The window on an encoder-decoder: its kind of maps shown and its switches (inert for a single stack). */
  public EncoderDecoderRuns encoderDecoder() {
    return twoStacks;
  }

  /** Closes a model no longer shown, on the worker after any call still running on it. */
  private void closeLater(AutoCloseable old) {
    if (old != null) {
      worker.submit(pr -> {
        old.close();
        return null;
      }, r -> { }, e -> { });
    }
  }

  void showShape(String name, int layerCount, int headCount) {
    modelName.set(name);
    layers.set(layerCount);
    heads.set(headCount);
    scores.clear(); // the Kovaleva categories are defined on one stack's bidirectional maps: none here
    cachedScores = null;
  }

  void say(String line) {
    status.set(line);
  }

  long nextGeneration() {
    return ++generation;
  }

  long generation() {
    return generation;
  }

  void clearSwitchHistory() {
    history.clear();
  }

  /** The input as typed (the source and the target of an encoder-decoder). */
  String[] typedText() {
    return new String[] {strip(textA.get()), strip(textB.get())};
  }

  /** The result of the typed input is shown (or the input was blanked): not stale, with its note. */
  void inputShown(boolean isStale, String note) {
    stale.set(isStale || !java.util.Arrays.equals(typedText(), session.inputText()) && session.trace() != null);
    inputNote.set(note);
  }

  /** Publishes a run's per-head numbers for the ranking, or withdraws them (null). */
  void publishOrWithdraw(io.headscope.model.HeadSummaries s) {
    if (s != null) {
      publishSummaries(s);
    } else {
      session.withdraw(SINK);
      session.withdraw(ENTROPY);
      session.withdraw(LARGEST);
      summaries.set(null);
    }
  }

  /**
   * Publishes an encoder-decoder's end token's share per head ({@code [layer][head]}, named by the token as its
   * keys spell it), or withdraws it (null).
   */
  void publishOrWithdrawEnd(String token, double[][] shares) {
    if (shares == null) {
      session.withdraw(END);
    } else {
      session.publish(new io.headscope.app.gui.session.HeadMeasure(END, END + " (" + token + ")", shares, true));
    }
  }

  /** Shows this head in the head view and the panels. */
  public void select(Head h) {
    session.select(h);
  }

  /** Adds or removes a head from the multi-selection (ctrl-click). */
  public void toggleInSelection(Head h) {
    Set<Head> next = new TreeSet<>(session.selection());
    if (!next.remove(h)) {
      next.add(h);
    }
    session.setSelection(Set.copyOf(next));
    session.select(h);
  }

  public void clearSelection() {
    session.setSelection(Set.of());
  }

  /** Switches one head off, or back on. */
  public void toggleHead(Head h) {
    HeadMask next = session.mask().toggled(h);
    setMask(next, "switch " + h + (next.isOff(h) ? " off" : " on"));
  }

  /**
   * Switches the given heads: off if any of them is on, else all back on (so the same key undoes it).
   * With nothing multi-selected, acts on the selected head.
   */
  public void toggleSelectedHeads() {
    Set<Head> heads = session.selection().isEmpty() && session.selected() != null ? Set.of(session.selected()) : session.selection();
    toggleAll(heads, heads.size() == 1 ? "switch " + heads.iterator().next() : "switch " + heads.size() + " heads");
  }

  /** Switches a whole layer (0-based) off, or back on when it is already all off. */
  public void toggleLayer(int layer) {
    Set<Head> layerHeads = new TreeSet<>();
    for (int h = 0; h < heads.get(); h++) {
      layerHeads.add(new Head(layer, h));
    }
    toggleAll(layerHeads, "switch layer " + (layer + 1));
  }

  private void toggleAll(Collection<Head> hs, String what) {
    if (hs.isEmpty()) {
      return;
    }
    Set<Head> next = new TreeSet<>(session.mask().off());
    boolean on = next.containsAll(hs);
    if (on) {
      next.removeAll(hs);
    } else {
      next.addAll(hs);
    }
    setMask(new HeadMask(next, session.mask().mode()), what + (on ? " on" : " off"));
  }

  public void switchAllOn() {
    setMask(new HeadMask(Set.of(), session.mask().mode()), "all heads on");
  }

  public void setMode(HeadMask.Mode mode) {
    setMask(session.mask().withMode(mode), "switch off by " + mode.name().toLowerCase(java.util.Locale.ROOT));
  }

  private void setMask(HeadMask next, String what) {
    HeadMask before = session.mask();
    if (Objects.equals(next, before)) {
      return;
    }
    history.record(before, next, what);
    session.setMask(next);
    analyse();
  }

  // --- undo and redo of switches ---------------------------------------------------------

  /** What Ctrl+Z would undo ("switch 8-7 off"), or "" when there is nothing. */
  public ReadOnlyStringProperty undoNameProperty() {
    return history.undoNameProperty();
  }

  /** What Ctrl+Shift+Z would redo, or "". */
  public ReadOnlyStringProperty redoNameProperty() {
    return history.redoNameProperty();
  }

  /** Puts the switches back as they were before the last change (and runs the model with them). */
  public void undo() {
    SwitchHistory.Step s = history.undo();
    if (s != null) {
      restore(s.before(), "Undone: " + s.what());
    }
  }

  /** Makes the last undone change again. */
  public void redo() {
    SwitchHistory.Step s = history.redo();
    if (s != null) {
      restore(s.after(), "Redone: " + s.what());
    }
  }

  private void restore(HeadMask mask, String message) {
    session.setMask(mask);
    status.set(message);
    analyse();
  }

  // --- named head sets -------------------------------------------------------------------

  /** Keeps head sets in {@code file} instead of the user's config file (tests; a project's own file). */
  public void setHeadSetsFile(java.nio.file.Path file) {
    headSetsFile = file;
  }

  public java.nio.file.Path headSetsFile() {
    return headSetsFile;
  }

  /** The saved sets, name to heads as written ({@code 8-10, 9-6, L11}); a malformed file is an error. */
  public java.util.Map<String, String> headSets() {
    try {
      return io.headscope.model.store.HeadSets.read(headSetsFile).sets();
    } catch (HeadScopeException e) {
      fail(e);
      return java.util.Map.of();
    }
  }

  /** Saves the heads now switched off as {@code name} (replacing a set of that name). */
  public void saveHeadSet(String name) {
    try {
      io.headscope.model.store.HeadSets.read(headSetsFile).with(name, session.mask().off(), heads.get()).write();
      status.set("Saved head set " + name.strip() + " in " + headSetsFile + " (CLI: --disable @" + name.strip() + ")");
    } catch (HeadScopeException e) {
      fail(e);
    }
  }

  /** Switches exactly the heads of a saved set off (all others on): one step to undo. */
  public void applyHeadSet(String name) {
    try {
      Set<Head> off = io.headscope.model.store.HeadSets.read(headSetsFile).heads(name, layers.get(), heads.get());
      setMask(new HeadMask(off, session.mask().mode()), "head set " + name);
    } catch (HeadScopeException e) {
      fail(e);
    }
  }

  /** A message in the status bar (e.g. a file written). */
  public void note(String message) {
    status.set(message);
  }

  public void acknowledgeError() {
    session.acknowledgeError();
  }

  /** Reports a problem from the view (e.g. an export) the same way as model errors. */
  public void fail(Throwable e) {
    session.fail(e);
  }

  /** A one-line message for a person ({@link Session#message}). */
  public static String message(Throwable e) {
    return Session.message(e);
  }

  void begin(String what) {
    begin(what, -1);
  }

  private void begin(String what, double fraction) {
    pending++;
    busy.set(true);
    status.set(what);
    progress.set(fraction);
  }

  void end() {
    pending = Math.max(0, pending - 1);
    busy.set(pending > 0);
    progress.set(pending > 0 ? -1 : 0);
  }
}
