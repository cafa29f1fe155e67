package io.headscope.app.gui.prune;

import io.headscope.analysis.ablation.PruneCsv;
import io.headscope.analysis.corpus.CorpusInput;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.corpus.LabelledCorpus;
import io.headscope.analysis.corpus.LabelledInput;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.analysis.ablation.ClassifierTarget;
import io.headscope.analysis.ablation.MaskedLmTarget;
import io.headscope.analysis.ablation.PruneTarget;
import io.headscope.analysis.ablation.Pruning;
import io.headscope.model.store.ProgressListener;
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
import javafx.beans.property.SimpleObjectProperty;

/**
 * The pruning panel (Michel et al.; METHODS.md, "Pruning curves"): on a corpus file, the curve of
 * importance order and of random order together, as {@code headscope prune --order importance} and
 * {@code --order random --seed 0} with the default step and mode compute them: accuracy on a labelled file
 * for a model with a classifier head, else masked-LM log-probability on text. One background job computes
 * both, with progress and Cancel; each curve exports with the CLI's bytes.
 */
public final class PruneViewModel extends ScreenModel<PruneViewModel.Curves> {
  /** The CLI's defaults. */
  static final double STEP = 0.1;
  static final long SEED = 0;
  static final int BATCH = 32;

  /** The two curves drawn together. */
  public record Curves(Pruning.Curve importance, Pruning.Curve random, String corpus) {}

  private final ObjectProperty<Path> corpus = new SimpleObjectProperty<>();

  public PruneViewModel(Session session) {
    super(session,
        "Open a labelled file (text<TAB>label) for a classifier, or a text file for masked-LM quality, and press Run.");
  }

  /** The corpus file the curves are computed on. */
  public ObjectProperty<Path> corpusProperty() {
    return corpus;
  }

  /** Computes both curves; the shown ones stay until the new ones are done. */
  public void run() {
    BertModel m = session.model();
    Path file = corpus.get();
    if (m == null || job.isRunning()) {
      return;
    }
    if (file == null) {
      job.say("Open a corpus file first.");
      return;
    }
    int layers = m.config().numHiddenLayers();
    int heads = m.config().numAttentionHeads();
    job.task("Reading " + file.getFileName() + "…", p -> {
      PruneTarget target = target(m, file);
      ProgressListener first = (s, f) -> p.update("Importance order: " + s, f / 2);
      Pruning.Curve imp = Pruning.run(target, layers, heads, Pruning.Order.IMPORTANCE, STEP, SEED, first,
          p::isCancelled);
      ProgressListener second = (s, f) -> p.update("Random order: " + s, 0.5 + f / 2);
      Pruning.Curve random = Pruning.run(target, layers, heads, Pruning.Order.RANDOM, STEP, SEED, second,
          p::isCancelled);
      return new Curves(imp, random, file.getFileName().toString());
    })
        .messages()
        .onSuccess(c -> {
          result.set(c);
          return summary(c);
        })
        .onFailure(e -> "Pruning failed: " + Session.message(e))
        .onCancel("Cancelled; the curves did not change.")
        .start();
  }

  /** Accuracy on a labelled file for a classifier (as the CLI chooses), else masked-LM quality on text. */
  static PruneTarget target(BertModel m, Path file) {
    if (m.hasClassifier()) {
      LabelledCorpus c = LabelledCorpus.read(file, m.classLabels());
      List<Encoding> inputs = new ArrayList<>();
      int[] gold = new int[c.inputs().size()];
      for (LabelledInput in : c.inputs()) {
        gold[inputs.size()] = in.label();
        inputs.add(encode(m, in.input(), file));
      }
      return new ClassifierTarget(m, inputs, gold, HeadMask.Mode.ZERO, BATCH);
    }
    if (!m.hasMaskedLmHead()) {
      throw new HeadScopeException(m.name() + " has neither a classifier head nor a masked-LM head to measure.");
    }
    List<Encoding> inputs = new ArrayList<>();
    for (CorpusInput in : CorpusReader.read(file).inputs()) {
      inputs.add(encode(m, in, file));
    }
    return new MaskedLmTarget(m, inputs, SEED, HeadMask.Mode.ZERO);
  }

  private static Encoding encode(BertModel m, CorpusInput in, Path file) {
    try {
      return m.encode(in.a(), in.b());
    } catch (HeadScopeException bad) {
      throw new HeadScopeException("Line " + in.line() + " of " + file + ": " + bad.getMessage(), bad);
    }
  }

  /** Where the curves stand at the step nearest 40% pruned (Michel et al.'s figure), in one line. */
  static String summary(Curves c) {
    Pruning.Step a = near(c.importance(), 0.4);
    Pruning.Step b = near(c.random(), 0.4);
    return String.format(Locale.ROOT, "%s on %s: intact %.4f; with %.0f%% of heads pruned, importance order %.4f, "
        + "random order %.4f.", c.importance().metric(), c.corpus(), c.importance().steps().get(0).metric(),
        100 * a.sharePruned(), a.metric(), b.metric());
  }

  private static Pruning.Step near(Pruning.Curve c, double share) {
    Pruning.Step best = c.steps().get(0);
    for (Pruning.Step s : c.steps()) {
      if (Math.abs(s.sharePruned() - share) < Math.abs(best.sharePruned() - share)) {
        best = s;
      }
    }
    return best;
  }

  /** Writes one curve through the writer {@code headscope prune} uses. */
  public static void writeCsv(Pruning.Curve c, Path file) {
    if (c == null) {
      throw new HeadScopeException("Compute the pruning curves first.");
    }
    SafeFiles.writeAtomically(file, true, out -> PruneCsv.write(c, out));
  }
}
