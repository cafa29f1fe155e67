package io.headscope.app.gui.layers;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusInput;
import io.headscope.analysis.flow.LayerCompatibility;
import io.headscope.analysis.flow.LayerCompatibilityCsv;
import io.headscope.analysis.flow.StitchedPredictions;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.screen.CorpusSource;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.MatrixFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import io.headscope.model.tokenizer.Encoding;
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
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The Layers screen: which layers can stand in for which ({@link LayerCompatibility}, METHODS.md "Layer
 * compatibility") over the current input or a corpus, on the worker with progress and Cancel; a cell's
 * read-out (log-prob, delta, top-1 agreement), and on a click the predictions of that stitched model
 * beside the intact one ({@link StitchedPredictions}, on the first input the matrix was computed on).
 * Seed 0 for inputs without a {@code [MASK]}, as {@code headscope layers} by default.
 */
public final class LayersViewModel extends ScreenModel<LayerCompatibility> {
  /** The choice that means "the input typed above", not a corpus. */
  public static final CorpusSource CURRENT_INPUT = new CorpusSource("current input", null, null);
  /** The CLI's default {@code --seed}. */
  static final long SEED = 0;
  static final int TOP_K = 5;

  private final ObjectProperty<CorpusSource> source = new SimpleObjectProperty<>(CURRENT_INPUT);
  private final ReadOnlyObjectWrapper<StitchedPredictions> predictions = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyStringWrapper about = new ReadOnlyStringWrapper("");
  private final BackgroundJob cellJob;
  /** The first input of the shown matrix: the one a click's predictions are read on. */
  private Encoding example;
  private int exampleCount;

  public LayersViewModel(Session session) {
    super(session,
        "Feed the hidden state after layer i into layer j and measure the masked-LM prediction: press Run.");
    this.cellJob = new BackgroundJob(session.worker(), session::fail, "");
  }

  @Override
  protected void clear() {
    super.clear();
    predictions.set(null);
    example = null;
  }

  /** The current input ({@link #CURRENT_INPUT}) or a corpus. */
  public ObjectProperty<CorpusSource> sourceProperty() {
    return source;
  }

  /** The clicked cell's predictions, or null. */
  public ReadOnlyObjectProperty<StitchedPredictions> predictionsProperty() {
    return predictions.getReadOnlyProperty();
  }

  /** What the shown matrix was computed on. */
  public ReadOnlyStringProperty aboutProperty() {
    return about.getReadOnlyProperty();
  }

  /** The status of a clicked cell's predictions (computing, or what they are). */
  public ReadOnlyStringProperty cellStatusProperty() {
    return cellJob.statusProperty();
  }

  /** Computes the matrix; the previous one stays until the new one is done. */
  public void run() {
    BertModel m = session.model();
    if (m == null || job.isRunning()) {
      return;
    }
    if (!m.hasMaskedLmHead()) {
      session.fail(new HeadScopeException(
          "Layer compatibility measures masked-LM predictions, and " + m.name() + " has no masked-LM head."));
      return;
    }
    CorpusSource src = source.get();
    int layers = m.config().numHiddenLayers();
    String cells = (layers + 1) + " x " + layers;
    if (src == CURRENT_INPUT) {
      AttentionTrace t = session.trace();
      if (t == null) {
        job.say("Type a sentence first.");
        return;
      }
      List<Encoding> inputs = List.of(t.encoding());
      start(job.task("Running the " + cells + " stitched models…",
          p -> LayerCompatibility.run(m, inputs, SEED, p::update, p::isCancelled)).progress(0),
          inputs, "the current input (" + t.tokens().size() + " tokens)");
      return;
    }
    List<Encoding> read = new ArrayList<>();
    start(job.task("Reading " + src.label() + "…", p -> {
      Corpus c = src.read();
      for (CorpusInput line : c.inputs()) {
        try {
          read.add(m.encode(line.a(), line.b()));
        } catch (HeadScopeException bad) {
          throw new HeadScopeException("Line " + line.line() + " of " + src.label() + ": " + bad.getMessage(), bad);
        }
      }
      return LayerCompatibility.run(m, read, SEED, (message, f) -> p.update(String.format(Locale.ROOT,
          "%s: the %s stitched models… %.0f%%", message, cells, 100 * f), f), p::isCancelled);
    }).messages(), read, src.label());
  }

  /** Starts a matrix's job: the matrix and its first input kept when done. */
  private void start(BackgroundJob.Task<LayerCompatibility> task, List<Encoding> inputs, String what) {
    task.onSuccess(r -> {
      result.set(r);
      predictions.set(null);
      example = inputs.get(0);
      exampleCount = inputs.size();
      about.set(what);
      return String.format(Locale.ROOT, "Intact log-probability %.3f on %s%s. Click a cell for its predictions.",
          r.intact(), what, r.inputs() > 1 ? " (mean over " + r.inputs() + " inputs)" : "");
    }).onFailure(e -> "Layer compatibility failed: " + Session.message(e))
        .onCancel("Cancelled; the matrix did not change.").start();
  }

  /** The number of hidden states fed in (rows: i = 0..L), 0 before a run. */
  public int rows() {
    return result.get() == null ? 0 : result.get().logprob().length;
  }

  /** The number of layers fed into (columns: j = 1..L), 0 before a run. */
  public int columns() {
    return result.get() == null ? 0 : result.get().logprob()[0].length;
  }

  /** {@code delta_logprob} of (i, j), as the CSV has it; j is 1-based. */
  public double delta(int from, int to) {
    LayerCompatibility r = result.get();
    return r.logprob()[from][to - 1] - r.intact();
  }

  /** The deltas, rows i = 0..L, columns j = 1..L (what the heatmap and the figure draw). */
  public double[][] deltas() {
    double[][] d = new double[rows()][columns()];
    for (int i = 0; i < d.length; i++) {
      for (int j = 1; j <= columns(); j++) {
        d[i][j - 1] = delta(i, j);
      }
    }
    return d;
  }

  /** One line for the pointer over cell (i, j). */
  public String describe(int from, int to) {
    LayerCompatibility r = result.get();
    if (r == null) {
      return " ";
    }
    String route = to == from + 1 ? "the intact model"
        : to > from + 1 ? (to == from + 2 ? "layer " + (from + 1) + " skipped" : "layers " + (from + 1) + "–" + (to - 1)
            + " skipped") : (to == from ? "layer " + to + " repeated" : "layers " + to + "–" + from + " repeated");
    return String.format(Locale.ROOT, "h%d → layer %d (%s): log-prob %.4f, Δ %+.4f, top-1 agreement %.0f%%", from, to,
        route, r.logprob()[from][to - 1], delta(from, to), 100 * r.top1()[from][to - 1]);
  }

  /** Clicking a cell computes that stitched model's predictions on the first input, beside the intact ones. */
  public void select(int from, int to) {
    BertModel m = session.model();
    Encoding e = example;
    if (m == null || e == null || cellJob.isRunning()) {
      return;
    }
    cellJob.task("Predicting with h" + from + " fed into layer " + to + "…",
        p -> StitchedPredictions.of(m, e, SEED, from, to, TOP_K))
        .onSuccess(s -> {
          predictions.set(s);
          return "Top " + TOP_K + " at each probed position, h" + from + " fed into layer " + to
              + (to == from + 1 ? " (the intact model)" : "") + " against the intact model"
              + (exampleCount > 1 ? ", on the first of the " + exampleCount + " inputs" : "") + ":";
        })
        .onFailure(error -> "The predictions failed.")
        .onCancel("")
        .start();
  }

  /** The matrix as a figure for a paper: Δ log-prob on the diverging scale, the numbers in the cells. */
  public Figure figure() {
    LayerCompatibility r = result.get();
    if (r == null) {
      throw new HeadScopeException("Run the layer compatibility first.");
    }
    List<String> rowLabels = new ArrayList<>();
    for (int i = 0; i < rows(); i++) {
      rowLabels.add(i == 0 ? "h0 (embeddings)" : "h" + i);
    }
    List<String> colLabels = new ArrayList<>();
    for (int j = 1; j <= columns(); j++) {
      colLabels.add("L" + j);
    }
    String model = session.model() == null ? "" : session.model().name();
    return MatrixFigure.of(model + " · layer compatibility: Δ log-prob",
        List.of("row i: the hidden state after layer i fed into layer j (column), layers j..L run on it; "
            + "j = i + 1 (Δ 0) is the intact model",
            String.format(Locale.ROOT, "intact log-probability %.3f; %d input(s); %s", r.intact(), r.inputs(),
                "scored as ablate scores masked-LM quality (METHODS.md)")),
        about.get(), rowLabels, colLabels, deltas(), true,
        "red: lower than the intact model; blue: higher", 30, true);
  }

  /** Writes {@code compat.csv} through the writer {@code headscope layers} uses. */
  public static void writeCsv(LayerCompatibility r, Path file) {
    if (r == null) {
      throw new HeadScopeException("Run the layer compatibility first.");
    }
    SafeFiles.writeAtomically(file, true, out -> LayerCompatibilityCsv.write(r, out));
  }
}
