package io.headscope.app.gui.linguistics;

import io.headscope.analysis.linguistics.CorefCsv;
import io.headscope.analysis.linguistics.CorefHeads;
import io.headscope.analysis.linguistics.CorefOnWindow;
import io.headscope.analysis.linguistics.DependencyHeads;
import io.headscope.analysis.linguistics.HeadOnSentence;
import io.headscope.analysis.linguistics.LinguisticsRun;
import io.headscope.analysis.linguistics.Sentence;
import io.headscope.analysis.linguistics.SyntaxCsv;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
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
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Linguistics screen: a CoNLL-U file through {@link LinguisticsRun} (the same analyses as
 * {@code headscope syntax} and {@code coref}) on the worker, with progress and Cancel; per relation
 * (or coreference) each head's accuracy for the grid, the best heads beside their baselines, and one
 * head on one sentence of the file with its gold arcs. A file that cannot be used leaves the previous
 * result as it was and says why in the status line.
 */
public final class LinguisticsViewModel extends ScreenModel<LinguisticsRun.Result> {
  private final BackgroundJob sentenceJob;
  private final BooleanProperty universal = new SimpleBooleanProperty(false);
  private final ObservableList<RelationChoice> relations = FXCollections.observableArrayList();
  private final BooleanProperty showRare = new SimpleBooleanProperty(false);
  private final ReadOnlyStringWrapper hidden = new ReadOnlyStringWrapper("");
  private final ObjectProperty<RelationChoice> chosen = new SimpleObjectProperty<>();
  private final ReadOnlyObjectWrapper<HeadOnSentence> sentence = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<CorefOnWindow> corefWindow = new ReadOnlyObjectWrapper<>();
  /** The file cut into windows, when coreference is first opened (once per file). */
  private CorefOnWindow.Windows corefWindows;
  private int corefStep = -1;
  /** Whether the panel's running job was asked for another head, window or sentence meanwhile. */
  private boolean panelBehind;
  private Head openHead;
  private int sentenceIndex = -1;

  public LinguisticsViewModel(Session session) {
    super(session,
        "Open a CoNLL-U treebank (Universal Dependencies; CorefUD Entity= for coreference) to score every head.",
        e -> { });
    // the status line says what went wrong, in one line; no dialog, nothing else changes
    this.sentenceJob = new BackgroundJob(session.worker(), e -> { }, "");
    chosen.addListener((o, a, b) -> {
      if (openHead != null && b != null) {
        open(openHead);
      }
      publish();
    });
    result.addListener((o, a, b) -> publish());
    // a head opened while the panel's last run is still going: run again for it once that one ends, so the
    // panel never stays on a head or window the person has left
    sentenceJob.runningProperty().addListener((o, a, b) -> {
      if (!b && panelBehind) {
        panelBehind = false;
        if (coreferenceChosen()) {
          showWindow();
        } else {
          showSentence();
        }
      }
    });
    showRare.addListener((o, a, b) -> {
      if (result.get() != null) {
        listRelations(result.get());
      }
    });
  }

  /**
   * Relations seen fewer times than this are hidden from the list and the best-head table unless asked
   * for: with 1 or 2 words a head reads 100% or 0% by chance. Clark et al. report relations by the
   * hundreds; 20 words put one word at 5 points.
   */
  public static final long MIN_WORDS = 20;

  /**
   * {@code root} is never listed: its gold head is the sentence's root, which no head can point to (the
   * {@code [CLS]}/{@code [SEP]} columns are dropped, Clark's convention), so every head reads 0% while the
   * offset baseline, clamped to the root, does not. Its words still count in {@code all} (METHODS.md).
   */
  public static final String ROOT = "root";

  /** Whether the list and the table also hold relations seen fewer than {@link #MIN_WORDS} times. */
  public BooleanProperty showRareProperty() {
    return showRare;
  }

  /** What the list leaves out and why, one line; empty when nothing is hidden. */
  public ReadOnlyStringProperty hiddenProperty() {
    return hidden.getReadOnlyProperty();
  }

  /** Whether a relation is listed: never root; a rare one only on request; {@code all} always. */
  boolean listed(String relation, long words) {
    return !ROOT.equals(relation)
        && (DependencyHeads.ALL.equals(relation) || showRare.get() || words >= MIN_WORDS);
  }
  @Override
  protected void clear() {
    super.clear();
    relations.clear();
    hidden.set("");
    sentence.set(null);
    corefWindow.set(null);
    sentenceJob.say("");
  }

  /** The source name of the numbers this screen publishes on the session. */
  static final String MEASURE_SOURCE = "linguistics";

  /** Offers the grid's accuracies (the chosen relation or coreference) to the ranking of heads. */
  private void publish() {
    RelationChoice c = chosen.get();
    if (result.get() == null || c == null) {
      session.withdraw(MEASURE_SOURCE);
      return;
    }
    session.publish(new io.headscope.app.gui.session.HeadMeasure(MEASURE_SOURCE,
        (c.coreference() ? "coreference" : c.relation()) + " accuracy (Linguistics)", grid(), true));
  }

  /** Collapse relation subtypes ({@code nmod:poss} to {@code nmod}) in the next run. */
  public BooleanProperty universalProperty() {
    return universal;
  }

  /** {@code all} first, then the relations by count, then coreference when the file has mentions. */
  public ObservableList<RelationChoice> relations() {
    return relations;
  }

  public ObjectProperty<RelationChoice> chosenProperty() {
    return chosen;
  }

  /** The head opened on a sentence, or null. */
  public ReadOnlyObjectProperty<HeadOnSentence> sentenceProperty() {
    return sentence.getReadOnlyProperty();
  }

  /**
   * The head opened on a window of the treebank when coreference is chosen: each mention's gold
   * antecedents, the head's pick and the baselines' picks; or null.
   */
  public ReadOnlyObjectProperty<CorefOnWindow> corefWindowProperty() {
    return corefWindow.getReadOnlyProperty();
  }

  /** What the sentence panel says (which sentence, how many arcs the head gets right), or why it failed. */
  public ReadOnlyStringProperty sentenceStatusProperty() {
    return sentenceJob.statusProperty();
  }

  /** Reads and scores a treebank; the previous result stays until this one is done. */
  public void open(Path file) {
    BertModel m = session.model();
    if (m == null || job.isRunning() || file == null) {
      return;
    }
    boolean uni = universal.get();
    job.task("Reading " + file.getFileName() + "…",
        p -> LinguisticsRun.run(m, file, uni, (phase, done, total) -> p.update(String.format(Locale.ROOT,
            "%s: %d of %d %s…", phase, done, total, phase.equals("syntax") ? "sentences" : "windows"),
            total == 0 ? -1 : done / (double) total), p::isCancelled))
        .messages()
        .onSuccess(r -> {
          show(r);
          return summary(r);
        })
        .onFailure(e -> "Could not use " + file.getFileName() + ": " + Session.message(e).replace('\n', ' ')
    + (result.get() == null ? "" : " (the previous treebank stays)"))
        .start();
  }

  private void show(LinguisticsRun.Result r) {
    openHead = null;
    sentenceIndex = -1;
    sentence.set(null);
    corefWindow.set(null);
    corefWindows = null;
    corefStep = -1;
    // the sentence panel described the previous file's sentence: it says nothing until a head is opened
    sentenceJob.say("");
    result.set(r);
    listRelations(r);
  }

  /** Lists the relations shown (see {@link #listed}), keeping the chosen one when it is still there. */
  private void listRelations(LinguisticsRun.Result r) {
    List<RelationChoice> list = new ArrayList<>();
    int rare = 0;
    boolean root = false;
    for (DependencyHeads.Best b : r.syntax().heads().best()) {
      if (listed(b.relation(), b.count())) {
        list.add(new RelationChoice(b.relation(), b.count(), false));
      } else if (ROOT.equals(b.relation())) {
        root = true;
      } else {
        rare++;
      }
    }
    // best() is sorted by count, and "all" counts every word: it comes first
    if (r.coref() != null) {
      list.add(RelationChoice.coref(r.coref().mentions()[CorefHeads.MentionType.ALL.ordinal()]));
    }
    RelationChoice was = chosen.get();
    relations.setAll(list);
    List<String> why = new ArrayList<>();
    if (root) {
      why.add("root (no head can point to the sentence's root; its words count in all)");
    }
    if (rare > 0) {
      why.add(rare + (rare == 1 ? " relation" : " relations") + " seen fewer than " + MIN_WORDS + " times");
    }
    hidden.set(why.isEmpty() ? "" : "Not listed: " + String.join("; ", why) + ".");
    chosen.set(was != null && list.contains(was) ? was : list.get(0));
  }

  static String summary(LinguisticsRun.Result r) {
    var s = r.syntax();
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s: %d sentences, %d words", r.file().getFileName(),
        s.sentences(), s.words()));
    if (s.tooLong() > 0) {
      b.append("; ").append(s.tooLong()).append(" longer than the model skipped");
    }
    if (!r.treebank().skipped().isEmpty()) {
      b.append("; ").append(r.treebank().skipped().size()).append(" unusable sentences skipped");
    }
    if (r.coref() != null) {
      b.append(String.format(Locale.ROOT, "; coreference: %d mentions in %d windows", r.coref().mentions()[0],
          r.coref().windows()));
    }
    return b.append(". Click a head to see it on a sentence.").toString();
  }

  /**
   * Each head's accuracy for the chosen entry, {@code [layer][head]}: for a relation the better of its two
   * directions (as the best-head table chooses), for coreference antecedent selection over all mentions.
   */
  public double[][] grid() {
    LinguisticsRun.Result r = result.get();
    RelationChoice c = chosen.get();
    if (r == null || c == null) {
      return new double[0][0];
    }
    DependencyHeads d = r.syntax().heads();
    double[][] g = new double[d.layers()][d.heads()];
    int nl = d.layers();
    int nh = d.heads();
    for (int l = 0; l < nl; l++) {
      for (int h = 0; h < nh; h++) {
        g[l][h] = c.coreference() ? r.coref().accuracy(l, h, CorefHeads.MentionType.ALL)
            : Math.max(d.accuracy(c.relation(), l, h, DependencyHeads.Direction.DEP_TO_HEAD),
                d.accuracy(c.relation(), l, h, DependencyHeads.Direction.HEAD_TO_DEP));
      }
    }
    return g;
  }

  /**
   * The best head per listed relation beside its offset baseline (the rows of {@code relations-best.csv},
   * which holds every relation).
   */
  public List<DependencyHeads.Best> best() {
    LinguisticsRun.Result r = result.get();
    return r == null ? List.of()
        : r.syntax().heads().best().stream().filter(b -> listed(b.relation(), b.count())).toList();
  }

  /**
   * One row of the coreference table per mention type (all, pronoun, proper, nominal): its mentions,
   * the best head and its accuracy (ties: the lowest layer, then head), and the two baselines as
   * {@code coref-baselines.csv} writes them.
   */
  public record CorefRow(String type, long mentions, String bestHead, double best, double nearest,
      double headMatch) {}

  /** The coreference table, or empty without coreference in the file. */
  public List<CorefRow> corefRows() {
    LinguisticsRun.Result r = result.get();
    if (r == null || r.coref() == null) {
      return List.of();
    }
    CorefHeads.Result c = r.coref();
    List<CorefRow> rows = new ArrayList<>();
    for (CorefHeads.MentionType t : CorefHeads.MentionType.values()) {
      int bl = 0;
      int bh = 0;
      for (int l = 0; l < c.layers(); l++) {
        for (int h = 0; h < c.heads(); h++) {
          if (c.correct()[l][h][t.ordinal()] > c.correct()[bl][bh][t.ordinal()]) {
            bl = l;
            bh = h;
          }
        }
      }
      rows.add(new CorefRow(t.label(), c.mentions()[t.ordinal()], (bl + 1) + "-" + (bh + 1), c.accuracy(bl, bh, t),
          c.baselineAccuracy(CorefHeads.NEAREST, t), c.baselineAccuracy(CorefHeads.HEAD_MATCH, t)));
    }
    return rows;
  }

  /** Whether coreference is the chosen entry. */
  public boolean coreferenceChosen() {
    RelationChoice c = chosen.get();
    return c != null && c.coreference();
  }

  /** One line for the pointer over a head. */
  public String describe(Head h) {
    LinguisticsRun.Result r = result.get();
    RelationChoice c = chosen.get();
    if (r == null || c == null || h == null) {
      return " ";
    }
    if (c.coreference()) {
      return String.format(Locale.ROOT, "head %s: antecedent chosen right for %.1f%% of %d mentions "
              + "(nearest mention %.1f%%, head match %.1f%%)", h,
          100 * r.coref().accuracy(h.layer(), h.head(), CorefHeads.MentionType.ALL), c.count(),
          100 * r.coref().baselineAccuracy(CorefHeads.NEAREST, CorefHeads.MentionType.ALL),
          100 * r.coref().baselineAccuracy(CorefHeads.HEAD_MATCH, CorefHeads.MentionType.ALL));
    }
    DependencyHeads d = r.syntax().heads();
    return String.format(Locale.ROOT, "head %s, %s (%d words): dep→head %.1f%%, head→dep %.1f%%", h, c.relation(),
        c.count(), 100 * d.accuracy(c.relation(), h.layer(), h.head(), DependencyHeads.Direction.DEP_TO_HEAD),
        100 * d.accuracy(c.relation(), h.layer(), h.head(), DependencyHeads.Direction.HEAD_TO_DEP));
  }

  /**
   * Opens a head: the main view selects it, and the sentence panel shows it on the first sentence of
   * the file with a word of the chosen relation (the first sentence for {@code all} and coreference).
   */
  public void open(Head h) {
    LinguisticsRun.Result r = result.get();
    if (r == null || h == null) {
      return;
    }
    openHead = h;
    session.select(h);
    RelationChoice c = chosen.get();
    if (c != null && c.coreference()) {
      corefStep = corefStep < 0 ? 0 : corefStep;
      showWindow();
      return;
    }
    sentenceIndex = firstWith(r, -1, 1);
    showSentence();
  }

  /** The next (+1) or previous (-1) sentence with a word of the chosen relation. */
  public void step(int direction) {
    LinguisticsRun.Result r = result.get();
    if (r == null || openHead == null) {
      return;
    }
    RelationChoice c = chosen.get();
    if (c != null && c.coreference()) {
      if (corefWindows != null && !corefWindows.withMentions().isEmpty()) {
        corefStep = Math.floorMod(corefStep + direction, corefWindows.withMentions().size());
        showWindow();
      }
      return;
    }
    sentenceIndex = firstWith(r, sentenceIndex, direction);
    showSentence();
  }

  /** Runs the opened head on the current window with an evaluated mention (the coreference panel). */
  private void showWindow() {
    BertModel m = session.model();
    LinguisticsRun.Result r = result.get();
    Head h = openHead;
    if (m == null || r == null || h == null) {
      return;
    }
    if (sentenceJob.isRunning()) {
      panelBehind = true;
      return;
    }
    int window = Math.min(LinguisticsRun.COREF_WINDOW, m.tokenizer().maxLength());
    int step = corefStep;
    CorefOnWindow.Windows known = corefWindows;
    sentenceJob.task("Running a window of " + r.file().getFileName() + "…", p -> {
          CorefOnWindow.Windows cut = known != null ? known : CorefOnWindow.windows(m, r.treebank(), window);
          List<Integer> with = cut.withMentions();
          if (with.isEmpty()) {
            throw new HeadScopeException("No window of the file has a mention with an earlier mention of its entity.");
          }
          return new WindowRun(cut, CorefOnWindow.of(m, cut, with.get(step % with.size()), h));
        })
        .onSuccess(run -> {
          List<Integer> with = run.windows().withMentions();
          CorefOnWindow on = run.on();
          corefWindows = run.windows();
          sentence.set(null);
          corefWindow.set(on);
          return describe(on, run.windows().size(), with.size());
        })
        .onFailure(e -> Session.message(e))
        .onCancel("")
        .start();
  }

  /** A window run on the worker, with the file's windows it stepped through. */
  private record WindowRun(CorefOnWindow.Windows windows, CorefOnWindow on) {}

  /**
   * The window's line: its number among all the file's windows (the count the status line gives: "21
   * windows" over "window 1 of 20" read as a contradiction), and how many of them ◀ ▶ step through.
   */
  static String describe(CorefOnWindow on, int windows, int withMentions) {
    long nearest = on.picks().stream().filter(CorefOnWindow.Pick::nearestRight).count();
    long match = on.picks().stream().filter(CorefOnWindow.Pick::headMatchRight).count();
    return String.format(Locale.ROOT, "Head %s on window %d of %d (document %s; ◀ ▶ step through the %d with a "
            + "mention to resolve): antecedent right for %d of %d mentions; nearest mention %d, head match %d. "
            + "Each row: a mention, the earlier mentions of its entity (gold), and the earlier mention each "
            + "picks (✓ right, ✗ wrong).", on.head(), on.index() + 1, windows, on.document(), withMentions,
        on.correct(), on.picks().size(), nearest, match);
  }

  private int firstWith(LinguisticsRun.Result r, int from, int direction) {
    List<Sentence> all = r.treebank().sentences();
    RelationChoice c = chosen.get();
    int n = all.size();
    for (int k = 1; k <= n; k++) {
      int i = Math.floorMod(from + direction * k, n);
      if (c == null || c.coreference() || DependencyHeads.ALL.equals(c.relation())
          || all.get(i).words().stream().anyMatch(w -> c.relation().equals(r.universal() ? w.universalRelation()
              : w.deprel()))) {
        return i;
      }
    }
    return Math.floorMod(from + direction, n);
  }

  private void showSentence() {
    BertModel m = session.model();
    LinguisticsRun.Result r = result.get();
    Head h = openHead;
    int index = sentenceIndex;
    if (m == null || r == null || h == null) {
      return;
    }
    if (sentenceJob.isRunning()) {
      panelBehind = true;
      return;
    }
    Sentence s = r.treebank().sentences().get(index);
    RelationChoice c = chosen.get();
    String rel = c == null || c.coreference() ? DependencyHeads.ALL : c.relation();
    sentenceJob.task("Running sentence " + s.id() + "…", p -> HeadOnSentence.of(m, s, h))
        .onSuccess(on -> {
          corefWindow.set(null);
          sentence.set(on);
          return describe(on, rel, index, r.treebank().sentences().size());
        })
        .onFailure(e -> Session.message(e))
        .onCancel("")
        .start();
  }

  static String describe(HeadOnSentence on, String relation, int index, int sentences) {
    long words = java.util.stream.IntStream.range(1, on.gold().length).filter(i -> on.counts(relation, i)).count();
    return String.format(Locale.ROOT, "Head %s on sentence %d of %d (%s): %s, %d words; right dep→head %d, "
            + "head→dep %d. Green frames: gold arcs (dependent's row, gold head's column); in each dependent's "
            + "row the head's picks: dot dep→head, ring head→dep; inside a frame is right.", on.head(), index + 1, sentences, on.sentence().id(), relation,
        words, on.correct(relation, DependencyHeads.Direction.DEP_TO_HEAD),
        on.correct(relation, DependencyHeads.Direction.HEAD_TO_DEP));
  }

  /** The grid as a figure (through the one figure renderer): the chosen entry's accuracy per head. */
  public io.headscope.app.render.figure.Figure figure() {
    LinguisticsRun.Result r = result.get();
    RelationChoice c = chosen.get();
    if (r == null || c == null) {
      throw new HeadScopeException("Open a treebank first.");
    }
    double[][] g = grid();
    List<String> rows = new ArrayList<>();
    List<String> cols = new ArrayList<>();
    for (int l = 0; l < g.length; l++) {
      rows.add("L" + (l + 1));
    }
    for (int h = 0; h < (g.length == 0 ? 0 : g[0].length); h++) {
      cols.add(String.valueOf(h + 1));
    }
    String model = session.model() == null ? "" : session.model().name() + " · ";
    String what = c.coreference()
        ? String.format(Locale.ROOT, "antecedent selection over %d mentions (nearest mention %.1f%%, head match %.1f%%)",
            c.count(), 100 * r.coref().baselineAccuracy(CorefHeads.NEAREST, CorefHeads.MentionType.ALL),
            100 * r.coref().baselineAccuracy(CorefHeads.HEAD_MATCH, CorefHeads.MentionType.ALL))
        : bestLine(r, c);
    return io.headscope.app.render.figure.MatrixFigure.of(model + c.relation() + ": accuracy of every head",
        List.of(what, "word-level attention (Clark et al. 2019); treebank " + r.file().getFileName() + ", "
            + r.syntax().sentences() + " sentences"),
        "", rows, cols, g, false, "accuracy", Math.max(24, Math.min(40, 480.0 / Math.max(1, cols.size()))), true);
  }

  private static String bestLine(LinguisticsRun.Result r, RelationChoice c) {
    for (DependencyHeads.Best b : r.syntax().heads().best()) {
      if (b.relation().equals(c.relation())) {
        return String.format(Locale.ROOT, "%d words; better of dep→head and head→dep; best %d-%d %s %.1f%%, "
                + "best offset %+d: %.1f%%", b.count(), b.layer(), b.head(), b.direction().label(),
            100 * b.accuracy(), b.baselineOffset(), 100 * b.baselineAccuracy());
      }
    }
    return c.count() + " words";
  }

  /** The relation whose arcs the sentence panel marks ({@code all} for coreference). */
  public String markedRelation() {
    RelationChoice c = chosen.get();
    return c == null || c.coreference() ? DependencyHeads.ALL : c.relation();
  }

  /**
   * Writes the CSVs of the last run through the CLI's writers: {@code relations.csv} at {@code file},
   * {@code -best} beside it, and, with coreference, {@code -coref} and {@code -coref-baselines}.
   *
   * @return the files written
   */
  public static List<Path> writeCsvs(LinguisticsRun.Result r, Path file) {
    if (r == null) {
      throw new HeadScopeException("Open a treebank first: the CSVs hold each head's accuracy over it.");
    }
    List<Path> out = new ArrayList<>();
    SafeFiles.writeAtomically(file, true, o -> SyntaxCsv.relations(r.syntax().heads(), o));
    out.add(file);
    Path best = withSuffix(file, "-best");
    SafeFiles.writeAtomically(best, true, o -> SyntaxCsv.best(r.syntax().heads(), o));
    out.add(best);
    if (r.coref() != null) {
      Path coref = withSuffix(file, "-coref");
      Path baselines = withSuffix(file, "-coref-baselines");
      SafeFiles.writeAtomically(coref, true, o -> CorefCsv.heads(r.coref(), o));
      SafeFiles.writeAtomically(baselines, true, o -> CorefCsv.baselines(r.coref(), o));
      out.add(coref);
      out.add(baselines);
    }
    return out;
  }

  /** {@code relations.csv} to {@code relations-best.csv} (as the CLI names them). */
  static Path withSuffix(Path file, String suffix) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    String next = dot > 0 ? name.substring(0, dot) + suffix + name.substring(dot) : name + suffix;
    return file.resolveSibling(next);
  }
}
