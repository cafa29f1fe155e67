package io.headscope.app.gui.compare;

import io.headscope.analysis.compare.CompareCsv;
import io.headscope.analysis.compare.ComparisonResult;
import io.headscope.analysis.compare.HeadComparison;
import io.headscope.analysis.compare.MapComparison;
import io.headscope.analysis.compare.ModelComparison;
import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.screen.CorpusSource;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.MatrixFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.SafeFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The Compare screen: the loaded model (A) against a second checkpoint of the same shape (B) head by
 * head ({@link ModelComparison}, METHODS.md "Base vs fine-tuned") over the current input or a corpus, on
 * the worker with progress and Cancel; a clicked head's two maps on the current input, A's tokens fed
 * to both (the main view selects the head too). B stays loaded between runs until another one is picked.
 */
public final class CompareViewModel extends ScreenModel<ComparisonResult> {
  /** The choice that means "the input typed above", not a corpus. */
  public static final CorpusSource CURRENT_INPUT = new CorpusSource("current input", null, null);

  /** What B can be: a model name or folder as {@code --with} takes it. */
  public record SecondModel(String label, String spec) {
    @Override
    public String toString() {
      return label;
    }
  }

  /** A clicked head's maps on the current input, and their numbers there. */
  public record HeadMaps(Head head, List<String> tokens, float[][] a, float[][] b, double cosine, double js) {}

  private final ModelRepository repository;
  private final ObjectProperty<CorpusSource> source = new SimpleObjectProperty<>(CURRENT_INPUT);
  private final ObjectProperty<SecondModel> second = new SimpleObjectProperty<>();
  private final ReadOnlyObjectWrapper<HeadMaps> maps = new ReadOnlyObjectWrapper<>();
  private final BackgroundJob mapJob;
  /** B, once loaded; used and replaced on the worker only. */
  private volatile BertModel loaded;
  private volatile String loadedSpec;
  /** The B of the shown result (null once it was closed). */
  private volatile BertModel shownB;

  public CompareViewModel(Session session, ModelRepository repository) {
    super(session,
        "Pick the second model (e.g. the fine-tuned one) and press Run.");
    this.repository = repository;
    this.mapJob = new BackgroundJob(session.worker(), session::fail, "");
  }

  @Override
  protected void clear() {
    super.clear();
    maps.set(null);
    shownB = null;
  }

  /** The current input ({@link #CURRENT_INPUT}) or a corpus. */
  public ObjectProperty<CorpusSource> sourceProperty() {
    return source;
  }

  /** Model B. */
  public ObjectProperty<SecondModel> secondProperty() {
    return second;
  }

  /** The clicked head's maps on the current input, or null. */
  public ReadOnlyObjectProperty<HeadMaps> mapsProperty() {
    return maps.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty mapStatusProperty() {
    return mapJob.statusProperty();
  }

  /** Runs the comparison; the previous result stays until the new one is done. */
  public void run() {
    BertModel a = session.model();
    SecondModel with = second.get();
    if (a == null || job.isRunning()) {
      return;
    }
    if (with == null) {
      job.say("Pick the second model first.");
      return;
    }
    CorpusSource src = source.get();
    Corpus corpus;
    String what;
    if (src == CURRENT_INPUT) {
      String[] text = session.inputText();
      if (session.trace() == null || text == null || text[0] == null || text[0].isBlank()) {
        job.say("Type a sentence first.");
        return;
      }
      if (!session.trace().hasFullMaps()) {
        job.say(tooLongToCompare(session.trace()));
        return;
      }
      corpus = Corpus.of(text[0], text[1] == null || text[1].isBlank() ? null : text[1]);
      what = "the current input";
    } else {
      corpus = null;
      what = src.label();
    }
    HeadClassifier classifier = new HeadClassifier();
    BertModel[] used = {null};
    job.task("Loading " + with.label() + "…", p -> {
      BertModel b = second(with, p);
      used[0] = b;
      Corpus c = corpus != null ? corpus : src.read();
      ModelComparison comparison = new ModelComparison(a, b, classifier, ModelComparison.DEFAULT_BATCH);
      if (corpus != null) {
        comparison = comparison.truncatingLongInputs();
      }
      return comparison.run(c, new CorpusAnalysis.Progress() {
        @Override
        public void update(int done, int total) {
          p.update(String.format(Locale.ROOT, "Comparing on %s: %d of %d inputs…", what, done, total),
              total > 0 ? done / (double) total : -1);
        }
      }, p::isCancelled);
    })
        .messages()
        .onSuccess(r -> {
          result.set(r);
          maps.set(null);
          shownB = used[0];
          int changed = r.changedCategories().size();
          return String.format(Locale.ROOT, "%s vs %s over %s (%d input%s): lowest layer mean cosine %.3f (layer %d); "
              + "%d head%s changed category. Click a head for its two maps.", r.modelA(), r.modelB(), what, r.inputs(),
              r.inputs() == 1 ? "" : "s", r.layersByCosine().get(0).cosine(), r.layersByCosine().get(0).layer() + 1,
              changed, changed == 1 ? "" : "s");
        })
        .onFailure(e -> "The comparison failed: " + Session.message(e))
        .onCancel("Cancelled; the grid did not change.")
        .start();
  }

  /**
   * B: the model picked, loaded once (on the worker), the previous one closed. B is always a model of its
   * own, even when it names the loaded one: a folder's model name is only its folder's name, so a name
   * cannot tell that two models are the same.
   */
  private BertModel second(SecondModel with, io.headscope.app.gui.exec.Worker.Progress p) {
    if (loaded != null && with.spec().equals(loadedSpec)) {
      return loaded;
    }
    var files = repository.resolve(with.spec(), p::update);
    p.update("Reading the weights of " + files.name() + "…", -1);
    BertModel b = BertModel.load(files);
    if (loaded != null) {
      if (shownB == loaded) {
        shownB = null; // the shown result's maps can no longer be traced through B
      }
      loaded.close();
    }
    loaded = b;
    loadedSpec = with.spec();
    return b;
  }

  /** The layers and heads of the shown result (0 before a run). */
  public int layers() {
    return result.get() == null ? 0 : result.get().layers();
  }

  public int heads() {
    return result.get() == null ? 0 : result.get().heads();
  }

  /** The mean cosine of a head, as the grid shows it. */
  public double cosine(Head h) {
    return result.get().head(h).cosine();
  }

  /** One line for the pointer over a head. */
  public String describe(Head h) {
    ComparisonResult r = result.get();
    if (r == null) {
      return " ";
    }
    HeadComparison c = r.head(h);
    return String.format(Locale.ROOT, "L%d H%d: cosine %.4f, JS %.5f nats (mean over %d input%s); %s in A, %s in B",
        h.layer() + 1, h.head() + 1, c.cosine(), c.jsDivergence(), c.inputs(), c.inputs() == 1 ? "" : "s",
        c.categoryA().label(), c.categoryB().label());
  }

  /**
   * Why the current input is not compared when the app keeps its maps as summaries: the comparison traces the input
   * through both models with every map held (its classifier reads each whole map), twice what the app declined to
   * hold for one.
   */
  static String tooLongToCompare(AttentionTrace t) {
    long n = t.tokens().size();
    return "This input's maps are kept as summaries (" + ((4L * t.layers() * t.heads() * n * n) >> 20) + " MB whole); "
        + "comparing would hold every map of both models: compare a shorter input or a corpus of shorter lines.";
  }

  /** Clicking a head shows its map in A and in B on the current input (A's tokens through both). */
  public void select(Head h) {
    BertModel a = session.model();
    AttentionTrace ta = session.trace();
    if (a == null || result.get() == null || mapJob.isRunning()) {
      return;
    }
    session.select(h); // the head view shows A's map of it with its tokens
    if (ta == null) {
      mapJob.say("Type a sentence to see this head's maps.");
      return;
    }
    mapJob.task("Tracing the current input through B…", p -> {
      BertModel b = shownB;
      if (b == null) {
        throw new HeadScopeException("Run the comparison first.");
      }
      AttentionTrace tb = b.trace(ta.encoding());
      float[][] ma = ta.map(h);
      float[][] mb = tb.map(h);
      return new HeadMaps(h, ta.tokens(), ma, mb, MapComparison.cosine(ma, mb), MapComparison.jsDivergence(ma, mb));
    })
        .onSuccess(m -> {
          maps.set(m);
          return String.format(Locale.ROOT, "L%d H%d on the current input (%d tokens): cosine %.4f, JS %.5f nats. %s",
              h.layer() + 1, h.head() + 1, m.tokens().size(), m.cosine(), m.js(), describe(h));
        })
        .onFailure(error -> "The maps failed.")
        .onCancel("")
        .start();
  }

  /** The grid as a figure: layers down, heads across, each cell's mean cosine. */
  public Figure figure() {
    ComparisonResult r = result.get();
    if (r == null) {
      throw new HeadScopeException("Run the comparison first.");
    }
    double[][] v = new double[r.layers()][r.heads()];
    List<String> rows = new ArrayList<>();
    List<String> cols = new ArrayList<>();
    for (int l = 0; l < r.layers(); l++) {
      rows.add("L" + (l + 1));
      for (int h = 0; h < r.heads(); h++) {
        v[l][h] = r.head(new Head(l, h)).cosine();
      }
    }
    for (int h = 0; h < r.heads(); h++) {
      cols.add("H" + (h + 1));
    }
    return MatrixFigure.of(r.modelA() + " vs " + r.modelB() + " · cosine similarity of each head's maps",
        List.of("Kovaleva et al. 2019: cosine of the two flattened maps, mean over " + r.inputs() + " input(s) of "
            + r.source() + "; the same token ids through both models"),
        r.source(), rows, cols, v, false, "cosine similarity (1: the same maps)", 30, true);
  }

  /** The bytes {@code headscope compare} writes. */
  public static void writeCsv(ComparisonResult r, Path file) {
    if (r == null) {
      throw new HeadScopeException("Run the comparison first.");
    }
    SafeFiles.writeAtomically(file, true, out -> CompareCsv.write(r, out));
  }
}
