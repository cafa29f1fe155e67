package io.headscope.app.gui.patch;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.ActivationPatching;
import io.headscope.analysis.causal.AttributionPatching;
import io.headscope.analysis.causal.PatchComparison;
import io.headscope.analysis.causal.PatchCsv;
import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchMetric;
import io.headscope.analysis.causal.PatchResult;
import io.headscope.analysis.causal.PatchSite;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.HeadMeasure;
import io.headscope.app.gui.session.Session;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.MatrixFigure;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * The Patching screen (Wang et al. 2022; Heimersheim and Nanda 2024): a clean and a corrupted input of the
 * same length, a followed word (and a contrast), and for every head what putting one activation from the
 * other run back does to the metric, as {@code headscope patch --by head|q|k|v} computes it; optionally
 * attribution patching's one-backward-pass estimate beside it. The clean input is the main window's
 * sentence unless another is typed; the followed word is the one chosen under Predictions unless typed.
 */
public final class PatchViewModel extends ScreenModel<PatchResult> {
  private final StringProperty clean = new SimpleStringProperty("");
  private final StringProperty corrupted = new SimpleStringProperty("");
  private final io.headscope.app.gui.screen.FollowedWords followed;
  private final ObjectProperty<PatchSite> site = new SimpleObjectProperty<>(PatchSite.HEAD);
  private final ObjectProperty<PatchDirection> direction = new SimpleObjectProperty<>(PatchDirection.DENOISE);
  private final BooleanProperty attribution = new SimpleBooleanProperty(true);
  private final BooleanProperty kl = new SimpleBooleanProperty(false);

  /**
   * The sites the screen offers: per head (the CLI's --by head, q, k, v), and per layer and token position
   * (each residual stream and the MLP output).
   */
  public static final List<PatchSite> SITES = List.of(PatchSite.HEAD, PatchSite.Q, PatchSite.K, PatchSite.V,
      PatchSite.RESID_PRE, PatchSite.RESID_MID, PatchSite.RESID_POST, PatchSite.MLP);

  /** The source name of the numbers this screen publishes for the ranking of heads. */
  static final String MEASURE_SOURCE = "patch";

  public PatchViewModel(Session session) {
    super(session, "Type a corrupted input of the same length as the clean one (a cue changed), a word to follow "
        + "at [MASK] (a causal model: as the next token) and a contrast, then Run.", e -> { });
    // the followed word and contrast chosen under Predictions fill the fields while they are empty
    this.followed = new io.headscope.app.gui.screen.FollowedWords(session);
    result.addListener((o, a, b) -> publish(b));
  }

  @Override
  protected void clear() {
    super.clear();
    session.withdraw(MEASURE_SOURCE);
  }


  /** The clean input; empty means the main window's sentence. */
  public StringProperty cleanProperty() {
    return clean;
  }

  public StringProperty corruptedProperty() {
    return corrupted;
  }

  public StringProperty targetProperty() {
    return followed.targetProperty();
  }

  /** The contrast word; empty: the metric is the target's log-probability. */
  public StringProperty contrastProperty() {
    return followed.contrastProperty();
  }

  public ObjectProperty<PatchSite> siteProperty() {
    return site;
  }

  public ObjectProperty<PatchDirection> directionProperty() {
    return direction;
  }

  /**
   * Measure the KL divergence of the whole output distribution from the clean run's (as {@code patch --metric
   * kl}) instead of the followed word; no word is needed, and attribution patching is not offered.
   */
  public BooleanProperty klProperty() {
    return kl;
  }

  /** Also attribution patching's estimate (one backward pass) beside the exact patching. */
  public BooleanProperty attributionProperty() {
    return attribution;
  }

  /** The clean text that will run: the typed one, else the main window's sentence. */
  public String cleanText() {
    if (!clean.get().isBlank()) {
      return clean.get().strip();
    }
    return session.inputAsOneText();
  }

  /** Patches every head at the chosen site on the worker (progress per layer, Cancel between layers). */
  public void run() {
    BertModel m = session.model();
    if (m == null || job.isRunning()) {
      return;
    }
    String cleanText = cleanText();
    String corruptedText = corrupted.get().strip();
    String word = followed.targetProperty().get().strip();
    String other = followed.contrastProperty().get().strip();
    if (cleanText.isBlank() || corruptedText.isBlank()) {
      job.say("Type both inputs: the clean one (or a sentence in the main window) and the corrupted one.");
      return;
    }
    boolean byKl = kl.get();
    if (word.isEmpty() && !byKl) {
      job.say("Type the word to follow at [MASK] (a causal model: as the next token; and a contrast, for the logit "
          + "difference), or tick KL.");
      return;
    }
    PatchSite s = site.get();
    PatchDirection d = direction.get();
    // attribution patching estimates per-head sites only (as the CLI's --attribution), and not KL
    boolean withAttribution = attribution.get() && s.perHead() && !byKl;
    job.task("Patching " + m.name() + "…", p -> {
          long[] tc = word.isEmpty() ? null : m.tokenizer().targetAndContrast(word, other.isEmpty() ? null : other);
          TargetMetric metric = tc == null ? null
              : new TargetMetric(other.isEmpty() ? TargetMetric.Kind.LOGPROB : TargetMetric.Kind.LOGIT_DIFF, tc[0], tc[1]);
          PatchInputs in = PatchInputs.of(m, cleanText, corruptedText);
          PatchMetric measured = byKl ? PatchMetric.kl(metric) : PatchMetric.of(metric);
          PatchResult r = new ActivationPatching(m).run(in, measured, s, d, p::update, p::isCancelled);
          return withAttribution ? r.withAttribution(new AttributionPatching(m).run(in, metric, s, d)) : r;
        })
        .onSuccess(r -> {
          result.set(r);
          return summary(r);
        })
        // inputs of two lengths, a word outside the vocabulary: one line here, the last result stays
        .onFailure(e -> "Could not patch: " + Session.message(e).replace('\n', ' ')
            + (result.get() == null ? "" : " (the previous result stays)"))
        .start();
  }

  /** The status line of a result: the two ends of the metric and the head that matters most. */
  static String summary(PatchResult r) {
    Head best = best(r);
    boolean denoise = r.direction() == PatchDirection.DENOISE;
    String s = String.format(Locale.ROOT, "%s: clean %.3f, corrupted %.3f (%s, %s). %s %s: recovered %.3f.",
        r.metric(), r.clean(), r.corrupted(), r.direction().label(), r.site().label(),
        denoise ? "Restores most:" : "Necessary most:", cell(r, best.layer(), best.head()),
        r.recovered(best.layer(), best.head()));
    if (r.hasAttribution()) {
      PatchComparison c = PatchComparison.of(r, 3);
      s += String.format(Locale.ROOT, " Attribution patching ranks the heads with Spearman %.3f against exact "
          + "patching; they disagree most at %s.", c.spearman(),
          String.join(", ", c.disagreements().stream().map(x -> x.head().toString()).toList()));
    }
    return s + (r.site().perHead() ? " Click a head to view it." : "");
  }

  /** A cell's name: {@code head 9-11}, or {@code layer 3, position 7 (she)}. */
  static String cell(PatchResult r, int layer, int cell) {
    return r.site().perHead() ? "head " + new Head(layer, cell)
        : "layer " + (layer + 1) + ", position " + cell + " (" + r.cleanTokens().get(cell)
            + (r.corruptedTokens().get(cell).equals(r.cleanTokens().get(cell)) ? "" : " / " + r.corruptedTokens().get(cell))
            + ")";
  }

  /** Denoising: the cell that restores most; noising: the one whose corruption loses most. */
  static Head best(PatchResult r) {
    int[] most = r.mostTelling();
    return new Head(most[0], most[1]);
  }

  /** The recovered share of every head, {@code [layer][head]}. */
  public double[][] recovered() {
    return shares(false);
  }

  /** Attribution patching's estimate as a share, {@code [layer][head]}; null without it. */
  public double[][] attributed() {
    PatchResult r = result.get();
    return r == null || !r.hasAttribution() ? null : shares(true);
  }

  private double[][] shares(boolean attributed) {
    PatchResult r = result.get();
    if (r == null) {
      return new double[0][0];
    }
    double[][] v = new double[r.layers()][r.cells()];
    for (int l = 0; l < r.layers(); l++) {
      for (int c = 0; c < r.cells(); c++) {
        v[l][c] = attributed ? r.attributedShare(l, c) : r.recovered(l, c);
      }
    }
    return v;
  }

  /** One line for the pointer over a head. */
  public String describe(Head h) {
    PatchResult r = result.get();
    if (r == null || h == null || h.layer() >= r.layers() || h.head() >= r.cells()) {
      return " ";
    }
    String s = String.format(Locale.ROOT, "%s (%s): %s with it patched %.4f, recovered %.3f",
        cell(r, h.layer(), h.head()), r.site().label(), r.metric(), r.patched()[h.layer()][h.head()],
        r.recovered(h.layer(), h.head()));
    return r.hasAttribution() ? s + String.format(Locale.ROOT, "; attribution estimate %.3f",
        r.attributedShare(h.layer(), h.head())) : s;
  }

  /** Clicking a head selects it in the main view. */
  public void select(Head h) {
    PatchResult r = result.get();
    if (h != null && r != null && r.site().perHead()) {
      session.select(h);
    }
  }

  /** Offers the recovered shares to the ranking of heads in the main window. */
  private void publish(PatchResult r) {
    if (r == null || !r.site().perHead()) {
      session.withdraw(MEASURE_SOURCE);
      return;
    }
    session.publish(new HeadMeasure(MEASURE_SOURCE, "recovered share, " + r.direction().label() + " "
        + r.site().label() + " (Patching)", recovered(), r.direction() == PatchDirection.DENOISE));
  }

  /** The grid as a figure: the recovered share per head on the diverging scale. */
  public Figure figure() {
    PatchResult r = result.get();
    if (r == null) {
      throw new HeadScopeException("Run the patching first.");
    }
    List<String> rows = new ArrayList<>();
    List<String> cols = new ArrayList<>();
    for (int l = 0; l < r.layers(); l++) {
      rows.add("L" + (l + 1));
    }
    for (int h = 0; h < r.cells(); h++) {
      cols.add(r.site().perHead() ? "h" + (h + 1) : h + " " + r.cleanTokens().get(h));
    }
    String model = session.model() == null ? "" : session.model().name() + " · ";
    return MatrixFigure.of(model + "activation patching: " + r.direction().label() + ", " + r.site().label(),
        List.of(String.format(Locale.ROOT, "recovered = (patched − corrupted) / (clean − corrupted); %s clean %.3f, "
            + "corrupted %.3f", r.metric(), r.clean(), r.corrupted()),
            "corrupted: \u201c" + String.join(" ", r.corruptedTokens()) + "\u201d"),
        String.join(" ", r.cleanTokens()), rows, cols, recovered(), true,
        "1: the " + (r.site().perHead() ? "head" : "cell") + " alone restores the clean behaviour (denoise) or is "
            + "not needed (noise)", r.site().perHead() ? 36 : 28, true);
  }

  /** Writes the CSV the CLI's {@code patch} writes for the same run. */
  public static void writeCsv(PatchResult r, Path file) {
    if (r == null) {
      throw new HeadScopeException("Run the patching first: the CSV holds each head's recovered share.");
    }
    SafeFiles.writeAtomically(file, true, o -> PatchCsv.write(List.of(r), o));
  }
}
