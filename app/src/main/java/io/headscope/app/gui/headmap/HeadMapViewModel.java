package io.headscope.app.gui.headmap;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.distance.HeadDistanceAnalysis;
import io.headscope.analysis.distance.HeadDistances;
import io.headscope.analysis.distance.HeadMap;
import io.headscope.analysis.export.HeadDistanceCsv;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.screen.CorpusSource;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.ObservableList;

/**
 * The head map screen: Clark et al.'s head distances over the current input or a corpus, computed by
 * the analysis module on the worker (progress, Cancel), laid out by classical MDS ({@link HeadMap}); the
 * points take their colours from the current input's categories, and a click selects a head for the
 * head view, as the grid does.
 */
public final class HeadMapViewModel extends ScreenModel<HeadMap> {
  /** The choice that means "the input typed above", not a corpus. */
  public static final CorpusSource CURRENT_INPUT = new CorpusSource("current input", null, null);

  private final ObservableList<HeadScore> scores;
  private final ObjectProperty<CorpusSource> source = new SimpleObjectProperty<>(CURRENT_INPUT);

  /**
   * @param scores every head's category on the current input, layer-major (the main view model's)
   */
  public HeadMapViewModel(Session session, ObservableList<HeadScore> scores) {
    super(session,
        "Compare every pair of heads on the current input or on a corpus: press Draw.");
    this.scores = scores;
  }

  /** The current input ({@link #CURRENT_INPUT}) or a corpus. */
  public ObjectProperty<CorpusSource> sourceProperty() {
    return source;
  }

  public ReadOnlyObjectProperty<Head> selectedProperty() {
    return session.selectedProperty();
  }

  /** The categories the colours follow: they change with the input, the distances stay until Draw. */
  public ObservableList<HeadScore> scores() {
    return scores;
  }

  /** Computes the distances and the map; the previous map stays until the new one is done. */
  public void draw() {
    BertModel m = session.model();
    if (m == null || job.isRunning()) {
      return;
    }
    CorpusSource src = source.get();
    if (src == CURRENT_INPUT) {
      AttentionTrace t = session.trace();
      if (t == null) {
        job.say("Type a sentence first: the map compares the heads' maps of the current input.");
        return;
      }
      int pairs = t.layers() * t.heads() * (t.layers() * t.heads() - 1) / 2;
      start(job.task("Comparing " + pairs + " pairs of heads…",
          p -> HeadMap.of(HeadDistanceAnalysis.of(t, p::isCancelled,
              f -> p.update(String.format(Locale.ROOT, "Comparing %d pairs of heads on %d tokens… %.0f%%", pairs,
                  t.tokens().size(), 100 * f), f)))).progress(0),
          "the current input (" + t.tokens().size() + " tokens)");
      return;
    }
    start(job.task("Reading " + src.label() + "…", p -> {
      Corpus c = src.read();
      HeadDistances d = new HeadDistanceAnalysis(m).run(c, 0, (done, total) -> p.update(
          "Comparing every pair of heads on " + done + " of " + total + " inputs…", done / (double) total),
          p::isCancelled);
      return HeadMap.of(d);
    }), src.label());
  }

  /** Starts a map's job: the work's messages as the status, the map kept when done. */
  private void start(BackgroundJob.Task<HeadMap> task, String what) {
    task.messages().onSuccess(r -> {
      result.set(r);
      return summary(r, what);
    }).onFailure(e -> "The head distances failed: " + Session.message(e))
        .onCancel("Cancelled; the map did not change.").start();
  }

  /** Clicking a point shows that head in the head view, as a click on the grid does. */
  public void select(Head h) {
    session.select(h);
  }

  /** The head's Kovaleva category on the current input, or null before there is one or where it is uncertain. */
  public HeadPattern category(Head h) {
    HeadMap r = result.get();
    int heads = r != null ? r.distances().heads() : session.trace() == null ? 0 : session.trace().heads();
    int i = h.layer() * heads + h.head();
    return heads > 0 && i < scores.size() && scores.get(i).head().equals(h) && !scores.get(i).uncertain()
        ? scores.get(i).category() : null;
  }

  /**
   * The colour key's entry for the grey dots (issue 40: grey was drawn but never named): what grey means on
   * this map, or null when the map has no grey dot. A causal model's heads get no category at all; on an
   * encoder a head is grey where the classifier is uncertain (its top probability under the threshold).
   */
  public String greyKey() {
    HeadMap r = result.get();
    if (r == null) {
      return null;
    }
    int grey = 0;
    for (int i = 0; i < r.distances().count(); i++) {
      if (category(r.distances().head(i)) == null) {
        grey++;
      }
    }
    if (grey == 0) {
      return null;
    }
    if (scores.isEmpty()) {
      io.headscope.model.BertModel m = session.model();
      return m != null && !io.headscope.analysis.heads.HeadClassifier.appliesTo(m)
          ? "no category (causal model: categories are withheld)" : "no category yet (type a sentence)";
    }
    return String.format(Locale.ROOT, "uncertain %d (top probability under %.2f: no category claimed)", grey,
        io.headscope.analysis.heads.LearnedRule.UNCERTAIN_BELOW);
  }

  /** One line for the pointer: the head, its category, and the head that attends most like it. */
  public String describe(Head h) {
    HeadMap r = result.get();
    if (r == null || h == null) {
      return " ";
    }
    HeadPattern p = category(h);
    Head near = r.nearest(h);
    return String.format(Locale.ROOT, "head %s (layer %d)%s · most alike: %s (JS %.4f nats) · click to view it",
        h, h.layer() + 1, p == null ? "" : ", " + p.label(), near, r.distances().divergence(h, near));
  }

  /** Writes the {@code head-distances} CSV of the map shown (the CLI's writer). */
  public static void writeCsv(HeadMap r, Path file) {
    if (r == null) {
      throw new HeadScopeException("Draw the map first: the CSV holds the distances it is drawn from.");
    }
    HeadDistanceCsv.write(file, true, r.distances());
  }

  private static String summary(HeadMap r, String what) {
    HeadDistances d = r.distances();
    return String.format(Locale.ROOT, "%d heads placed by how alike they attend on %s%s; the two axes carry "
        + "%.0f%% of the variance. Number: layer (left off where dots crowd; point at one to name it); colour: "
        + "category on the current input. Click a point to view the head.", d.count(), what, d.inputs() > 1 ? " (mean over " + d.inputs() + " inputs)" : "",
        100 * r.layout().explained());
  }

  /** For the view: the heads in map order. */
  List<Head> heads() {
    HeadMap r = result.get();
    return r == null ? List.of() : Head.all(r.distances().layers(), r.distances().heads());
  }
}
