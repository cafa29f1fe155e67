package io.headscope.app.gui.corpus;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadSummary;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.screen.CorpusSource;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import java.util.Locale;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The corpus screen: reads a corpus and classifies every head on every input through the analysis
 * module's {@link CorpusAnalysis} on the worker, with progress and cancel; the result feeds the share
 * grid, the category chart and the classification CSV (the CLI {@code classify} writer).
 */
public final class CorpusViewModel extends ScreenModel<CorpusResult> {
  private final ObjectProperty<CorpusSource> source = new SimpleObjectProperty<>(CorpusSource.SHIPPED.get(0));

  public CorpusViewModel(Session session) {
    super(session,
        "Pick a shipped corpus or open a file (one input per line, a TAB between the sentences of a pair), then Run.");
  }

  /** The corpus the next run reads. */
  public ObjectProperty<CorpusSource> sourceProperty() {
    return source;
  }

  /** Reads the chosen corpus and classifies it; the previous result stays until the new one is done. */
  public void run() {
    BertModel m = session.model();
    if (m == null || job.isRunning()) {
      return;
    }
    if (!io.headscope.analysis.heads.HeadClassifier.appliesTo(m)) {
      // said on the screen before any run, not as an error dialog after one (issue 40's walk-through: the
      // dialog over a causal model's corpus screen); the line is the CLI's classify refusal
      try {
        io.headscope.analysis.heads.HeadClassifier.refuseUnlessApplies(m);
      } catch (io.headscope.model.core.HeadScopeException e) {
        job.say("No corpus run: " + e.getMessage());
      }
      return;
    }
    CorpusSource src = source.get();
    int heads = m.config().numHiddenLayers() * m.config().numAttentionHeads();
    job.task("Reading " + src.label() + "…", p -> {
      Corpus c = src.read();
      return new CorpusAnalysis(m).run(c, (done, total) -> p.update(
          "Classifying " + heads + " heads on " + done + " of " + total + " inputs…", done / (double) total),
          p::isCancelled);
    }).messages().onSuccess(r -> {
      result.set(r);
      return summary(r, src);
    }).onFailure(e -> "The corpus run failed: " + Session.message(e)).start();
  }

  /** Writes the {@code classify} CSV of the last run (the same writer and columns as the CLI). */
  public void exportCsv(Path file) {
    writeCsv(result.get(), file);
  }

  /** The CSV of a corpus run (any thread: the result does not change). */
  public static void writeCsv(CorpusResult r, Path file) {
    if (r == null) {
      throw new HeadScopeException("Run a corpus first: the CSV holds each head's category shares over it.");
    }
    Exports.classificationCsv(r.perHead(), file);
  }

  /** Clicking a head's cell shows that head in the main view. */
  public void select(Head h) {
    session.select(h);
  }

  /** One line for the pointer: the head's shares over the corpus. */
  public String describe(Head h) {
    CorpusResult r = result.get();
    if (r == null) {
      return "";
    }
    HeadSummary s = r.head(h);
    StringBuilder b = new StringBuilder("head " + h + ":");
    for (HeadPattern p : HeadPattern.values()) {
      if (s.share(p) > 0) {
        b.append(String.format(Locale.ROOT, " %s %.0f%%", p.label(), 100 * s.share(p)));
      }
    }
    return b.append(" of ").append(s.inputs()).append(" inputs; looks most at ")
        .append(String.join(", ", s.topTokens())).toString();
  }

  private static String summary(CorpusResult r, CorpusSource src) {
    int skipped = r.corpus().problems().size();
    return String.format(Locale.ROOT, "%s: %d inputs × %d heads classified%s. Cell colour: each head's most "
        + "frequent category; number: its share of inputs. Click a cell to view the head.",
        src.label(), r.inputs(), r.perHead().size(), skipped == 0 ? "" : "; " + skipped + " lines skipped");
  }

  /** The token types as the loaded model names them (the per-layer chart's legend). */
  public io.headscope.app.render.TokenTypeNames tokenTypeNames() {
    return io.headscope.app.render.TokenTypeNames.of(session.model());
  }
}
