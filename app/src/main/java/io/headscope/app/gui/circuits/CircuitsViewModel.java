package io.headscope.app.gui.circuits;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.circuits.Ablation;
import io.headscope.analysis.circuits.CircuitEdge;
import io.headscope.analysis.circuits.CircuitNode;
import io.headscope.analysis.circuits.CompositionResult;
import io.headscope.analysis.circuits.CompositionScores;
import io.headscope.analysis.circuits.EdgeAnalysis;
import io.headscope.analysis.circuits.EdgeCheck;
import io.headscope.analysis.circuits.EdgeScores;
import io.headscope.analysis.circuits.Faithfulness;
import io.headscope.analysis.circuits.HeadDetectors;
import io.headscope.app.gui.screen.FollowedWords;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.HeadMeasure;
import io.headscope.app.gui.session.Session;
import io.headscope.app.render.figure.CircuitFigure;
import io.headscope.app.render.figure.Figure;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.CompositionNorms.Mode;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import javafx.beans.property.DoubleProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * The Circuits screen's state (issue 43): for a clean and a corrupted input, every edge of the circuit graph
 * scored by EAP (or EAP-IG), the top edges drawn by |score| over a threshold, one edge's exact patch beside its
 * estimate on a click, and the faithfulness of the top-N circuit, every point an exact run; from the weights,
 * composition scores as a layers x heads matrix per receiver; and the three head detectors, published to the
 * main window's ranking of heads. An ablated edge carries the corrupted run's output or the mean over a typed
 * set of corrupted inputs; with a set typed both ablations run, so the screen shows what the choice changes
 * (Miller et al. 2024), and every number names its ablation. Every computation runs on the worker.
 */
public final class CircuitsViewModel extends ScreenModel<CircuitsViewModel.Result> {
  /** EAP-IG's points on the path (Hanna et al. 2024 use 5 to 20). */
  public static final int IG_STEPS = 20;
  /** The circuit sizes whose faithfulness is run exactly. */
  static final int[] CURVE = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
  /** The detectors' sequences: this many random tokens per half, this many sequences (the CLI's defaults). */
  static final int DETECT_LENGTH = 20;
  static final int DETECT_INPUTS = 8;

  /** How the edges are scored. */
  public enum Method {
    EAP("EAP (one backward pass)"),
    EAP_IG("EAP-IG (" + IG_STEPS + " steps)");

    private final String label;

    Method(String label) {
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /**
   * One run: the analysis (kept for the exact patches a click asks for), every edge's estimate and the
   * faithfulness curve of the circuits of its top edges.
   */
  public record Result(EdgeAnalysis analysis, EdgeScores scores, Faithfulness faithfulness, int averaged,
      Result other) {

    /** This result with the other ablation's beside it. */
    Result comparedWith(Result o) {
      return new Result(analysis, scores, faithfulness, averaged, o);
    }

    /** The ablation of this result's numbers as the screen names it: "corrupted" or "mean over 3 inputs". */
    public String ablationName() {
      return analysis.ablation() == Ablation.MEAN
          ? "mean over " + averaged + (averaged == 1 ? " corrupted input" : " corrupted inputs") : "corrupted";
    }
  }

  /** The weights' side: composition scores of every mode, the detectors' scores. */
  public record Weights(Map<Mode, CompositionResult> composition, HeadDetectors.Result detectors) {}

  private final StringProperty clean = new SimpleStringProperty("");
  private final StringProperty corrupted = new SimpleStringProperty("");
  private final FollowedWords followed;
  private final ObjectProperty<Method> method = new SimpleObjectProperty<>(Method.EAP);
  private final ObjectProperty<Ablation> ablation = new SimpleObjectProperty<>(Ablation.CORRUPTED);
  private final StringProperty corruptedSet = new SimpleStringProperty("");
  private final IntegerProperty top = new SimpleIntegerProperty(40);
  private final DoubleProperty threshold = new SimpleDoubleProperty(0);
  private final ReadOnlyObjectWrapper<List<Integer>> shown = new ReadOnlyObjectWrapper<>(List.of());
  private final ReadOnlyObjectWrapper<CircuitEdge> selected = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<EdgeCheck> check = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<EdgeCheck> otherCheck = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<Weights> weights = new ReadOnlyObjectWrapper<>();
  private final ObjectProperty<Mode> mode = new SimpleObjectProperty<>(Mode.Q);
  private final ObjectProperty<Head> receiver = new SimpleObjectProperty<>();

  static final String[] MEASURES = {"circuits-previous", "circuits-duplicate", "circuits-induction"};

  public CircuitsViewModel(Session session) {
    super(session, "Type a clean input (with [MASK] for a masked model; a decoder follows the next token), a "
        + "corrupted one of the same length (a cue changed), the word to follow and its contrast, then Run: every edge "
        + "between heads is scored.", e -> { });
    this.followed = new FollowedWords(session);
    top.addListener((o, a, b) -> choose());
    threshold.addListener((o, a, b) -> choose());
    result.addListener((o, a, b) -> {
      selected.set(null);
      check.set(null);
      otherCheck.set(null);
      choose();
    });
  }

  @Override
  protected void clear() {
    super.clear();
    weights.set(null);
    receiver.set(null);
    for (String m : MEASURES) {
      session.withdraw(m);
    }
  }

  public StringProperty cleanProperty() {
    return clean;
  }

  public StringProperty corruptedProperty() {
    return corrupted;
  }

  public StringProperty targetProperty() {
    return followed.targetProperty();
  }

  public StringProperty contrastProperty() {
    return followed.contrastProperty();
  }

  public ObjectProperty<Method> methodProperty() {
    return method;
  }

  /** What an ablated edge carries: the corrupted run's output, or the mean over the corrupted set. */
  public ObjectProperty<Ablation> ablationProperty() {
    return ablation;
  }

  /**
   * Corrupted inputs, one a line, each of the clean input's number of tokens: mean ablation averages over them;
   * typed, a run scores the edges under both ablations.
   */
  public StringProperty corruptedSetProperty() {
    return corruptedSet;
  }

  /** At most this many edges are drawn, the largest |score| first. */
  public IntegerProperty topProperty() {
    return top;
  }

  /** Edges whose |score| is below this are not drawn. */
  public DoubleProperty thresholdProperty() {
    return threshold;
  }

  /** The indices (into the result's edges) of the edges drawn, largest |score| first. */
  public ReadOnlyObjectProperty<List<Integer>> shownProperty() {
    return shown.getReadOnlyProperty();
  }

  public ReadOnlyObjectProperty<CircuitEdge> selectedProperty() {
    return selected.getReadOnlyProperty();
  }

  /** The clicked edge's estimate beside its exact patch, once run. */
  public ReadOnlyObjectProperty<EdgeCheck> checkProperty() {
    return check.getReadOnlyProperty();
  }

  public ReadOnlyObjectProperty<Weights> weightsProperty() {
    return weights.getReadOnlyProperty();
  }

  /** Which of the receiver's inputs the composition matrix reads. */
  public ObjectProperty<Mode> modeProperty() {
    return mode;
  }

  /** The head whose composition matrix is drawn (a click on a head node chooses it). */
  public ObjectProperty<Head> receiverProperty() {
    return receiver;
  }

  /** The clean text that will run: the typed one, else the main window's sentence. */
  public String cleanText() {
    if (!clean.get().isBlank()) {
      return clean.get().strip();
    }
    return session.inputAsOneText();
  }

  /** Scores every edge, then runs the faithfulness of the top-N circuits exactly (progress, Cancel between runs). */
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
    if (word.isEmpty() || other.isEmpty()) {
      job.say("Type the word to follow " + (m.maskToken() == null ? "as the next token" : "at " + m.maskToken())
          + " and its contrast: the metric is their logit difference.");
      return;
    }
    Method how = method.get();
    Ablation chosen = ablation.get();
    List<String> set = corruptedSetLines();
    if (chosen == Ablation.MEAN && set.isEmpty()) {
      job.say("Mean ablation averages over a set of corrupted inputs: type them, one a line, each of the clean "
          + "input's number of tokens.");
      return;
    }
    job.task("Scoring every edge of " + m.name() + " (" + how + ", " + chosen.label() + " ablation)…", p -> {
      long[] tc = m.tokenizer().targetAndContrast(word, other);
      TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, tc[0], tc[1]);
      PatchInputs in = PatchInputs.of(m, cleanText, corruptedText);
      List<Encoding> encoded = encodeSet(m, set, in.length());
      // with a set typed, both ablations run: the chosen one is drawn, the other shows what the choice changes
      // (Miller et al. 2024: circuit metrics are not robust to it)
      boolean both = !encoded.isEmpty();
      Result first = score(m, in, metric, chosen, encoded, how, p, 0, both ? 0.5 : 1);
      if (!both) {
        return first;
      }
      Ablation second = chosen == Ablation.CORRUPTED ? Ablation.MEAN : Ablation.CORRUPTED;
      return first.comparedWith(score(m, in, metric, second, encoded, how, p, 0.5, 1));
    })
        .progress(0)
        .onSuccess(r -> {
          result.set(r);
          return summary(r);
        })
        .onFailure(e -> "Could not score the edges: " + Session.message(e).replace('\n', ' ')
            + (result.get() == null ? "" : " (the previous result stays)"))
        .start();
  }

  /** The typed corrupted set: its non-blank lines, stripped. */
  List<String> corruptedSetLines() {
    return corruptedSet.get().lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
  }

  /** The set encoded as {@code circuit --corrupted-set} encodes it; a line of another length is one line of refusal. */
  private static List<Encoding> encodeSet(BertModel m, List<String> lines, int length) {
    List<Encoding> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Encoding e = m.encode(lines.get(i), null);
      if (e.length() != length) {
        throw new HeadScopeException("Corrupted set, line " + (i + 1) + ": " + e.length() + " tokens, the clean input "
            + length + "; every input of the set needs the clean input's number of tokens (" + String.join(" ",
            e.tokens()) + ").");
      }
      out.add(e);
    }
    return out;
  }

  /** One ablation's analysis, its edge scores and its faithfulness curve, progress from {@code from} to {@code to}. */
  private static Result score(BertModel m, PatchInputs in, TargetMetric metric, Ablation ablation, List<Encoding> set,
      Method how, io.headscope.app.gui.exec.Worker.Progress p, double from, double to) {
    EdgeAnalysis a = EdgeAnalysis.of(m, in, metric, ablation, set);
    p.update("Edge scores (" + ablation.label() + " ablation)", from + 0.1 * (to - from));
    EdgeScores s = how == Method.EAP ? a.eap() : a.eapIg(IG_STEPS);
    return new Result(a, s, faithfulness(a, s, p, from + 0.2 * (to - from), to),
        ablation == Ablation.MEAN ? set.size() : 1, null);
  }

  /** The metric of the circuits of the top N edges at {@link #CURVE}'s sizes, each run exactly. */
  static Faithfulness faithfulness(EdgeAnalysis a, EdgeScores s, io.headscope.app.gui.exec.Worker.Progress p,
      double from, double to) {
    double empty = a.empty();
    double full = a.clean();
    List<Faithfulness.Point> points = new ArrayList<>();
    int[] order = s.top(s.edges().size());
    List<Integer> sizes = new ArrayList<>();
    for (int n : CURVE) {
      if (n < order.length) {
        sizes.add(n);
      }
    }
    sizes.add(order.length);
    for (int i = 0; i < sizes.size(); i++) {
      if (p.isCancelled()) {
        throw new CancellationException();
      }
      int n = sizes.get(i);
      List<CircuitEdge> circuit = new ArrayList<>(n);
      for (int j = 0; j < n; j++) {
        circuit.add(s.edges().get(order[j]));
      }
      double metric = a.circuitMetric(circuit);
      points.add(new Faithfulness.Point(n, metric, (metric - empty) / (full - empty)));
      p.update("Faithfulness of the top " + n + " edges (" + a.ablation().label() + " ablation)",
          from + (to - from) * (i + 1) / sizes.size());
    }
    return new Faithfulness(s.method(), a.ablation(), s.metric(), full, empty, points, Double.NaN, List.of());
  }

  static String summary(Result r) {
    EdgeScores s = r.scores();
    int best = s.top(1)[0];
    Faithfulness f = r.faithfulness();
    String kept = f.points().stream().filter(pt -> pt.edges() >= 20).findFirst()
        .map(pt -> String.format(Locale.ROOT, " The top %d edges alone keep %d%% of it.", pt.edges(),
            Math.round(100 * pt.kept())))
        .orElse("");
    return String.format(Locale.ROOT, "%s of %d edges (%s ablation): %s clean %.3f, corrupted %.3f. Largest: %s (%+.3f).%s"
        + " Click an edge for its exact patch.", s.method().toUpperCase(Locale.ROOT), s.edges().size(),
        r.ablationName(), s.metric(), s.clean(), s.corrupted(), s.edges().get(best).label(), s.score(best), kept);
  }

  /** The edges compared between the two ablations: the top this many of each. */
  static final int COMPARED = 20;

  /**
   * What the choice of ablation changes (Miller et al. 2024), in one line: how many of the top edges the two
   * rankings share, the largest edge of each, the share the top-N circuit keeps and the metric with every edge
   * ablated under each; null with one ablation run.
   */
  public static String comparison(Result r) {
    if (r == null || r.other() == null) {
      return null;
    }
    Result o = r.other();
    int k = Math.min(COMPARED, r.scores().edges().size());
    java.util.Set<CircuitEdge> mine = new java.util.HashSet<>(r.scores().topEdges(k));
    long shared = o.scores().topEdges(k).stream().filter(mine::contains).count();
    int a = r.scores().top(1)[0];
    int b = o.scores().top(1)[0];
    Faithfulness.Point pa = pointAt(r.faithfulness(), k);
    Faithfulness.Point pb = pointAt(o.faithfulness(), k);
    String keeps = pa == null || pb == null ? "" : String.format(Locale.ROOT, " The top %d edges keep %d%% vs %d%%.",
        pa.edges(), Math.round(100 * pa.kept()), Math.round(100 * pb.kept()));
    return String.format(Locale.ROOT, "Ablation %s vs %s: the top %d edges share %d; largest %s (%+.3f) vs %s (%+.3f);"
        + " every edge ablated gives %s %.3f vs %.3f.%s", r.ablationName(), o.ablationName(), k, shared,
        r.scores().edges().get(a).label(), r.scores().score(a), o.scores().edges().get(b).label(), o.scores().score(b),
        r.scores().metric(), r.faithfulness().empty(), o.faithfulness().empty(), keeps);
  }

  private static Faithfulness.Point pointAt(Faithfulness f, int n) {
    return f.points().stream().filter(p -> p.edges() == n).findFirst().orElse(null);
  }

  private void choose() {
    Result r = result.get();
    if (r == null) {
      shown.set(List.of());
      return;
    }
    List<Integer> out = new ArrayList<>();
    for (int i : r.scores().top(Math.max(0, top.get()))) {
      if (Math.abs(r.scores().score(i)) >= threshold.get()) {
        out.add(i);
      }
    }
    shown.set(List.copyOf(out));
  }

  /** The largest |score| of the result (the scale of the drawn widths); 0 without one. */
  public double maxScore() {
    Result r = result.get();
    if (r == null) {
      return 0;
    }
    int[] t = r.scores().top(1);
    return t.length == 0 ? 0 : Math.abs(r.scores().score(t[0]));
  }

  /** One line for the pointer over an edge. */
  public String describe(int index) {
    Result r = result.get();
    if (r == null || index < 0 || index >= r.scores().edges().size()) {
      return " ";
    }
    CircuitEdge e = r.scores().edges().get(index);
    return String.format(Locale.ROOT, "%s: %s's output into %s. %s estimate %+.4f of %s (%s ablation minus clean; "
        + "negative: the edge carries the behaviour). Click for the exact patch.", e.label(), e.sender().label(),
        what(e), r.scores().method().toUpperCase(Locale.ROOT), r.scores().score(index), r.scores().metric(),
        r.ablationName());
  }

  private String what(CircuitEdge e) {
    return switch (e.input()) {
      case Q -> e.receiver().label() + "'s queries";
      case K -> e.receiver().label() + "'s keys" + shared(e.receiver());
      case V -> e.receiver().label() + "'s values" + shared(e.receiver());
      case MLP -> "the MLP of layer " + (e.receiver().layer() + 1);
      case LOGITS -> "the logits";
    };
  }

  /** For a key/value group: the query heads that share its keys and values. */
  private String shared(CircuitNode r) {
    if (r.kind() != CircuitNode.Kind.GROUP) {
      return "";
    }
    BertModel m = session.model();
    int size = m == null ? 1 : m.config().numAttentionHeads() / m.config().parts().keyValueHeads();
    return String.format(Locale.ROOT, " (key/value group %d, shared by heads %d-%d to %d-%d)", r.head() + 1,
        r.layer() + 1, r.head() * size + 1, r.layer() + 1, r.head() * size + size);
  }

  /** A click on an edge: its exact patch (one run) beside its estimate. */
  public void selectEdge(int index) {
    Result r = result.get();
    if (r == null || index < 0 || index >= r.scores().edges().size() || job.isRunning()) {
      return;
    }
    CircuitEdge e = r.scores().edges().get(index);
    double estimate = r.scores().score(index);
    selected.set(e);
    check.set(null);
    otherCheck.set(null);
    if (e.receiver().kind() == CircuitNode.Kind.HEAD || e.receiver().kind() == CircuitNode.Kind.GROUP) {
      // a key/value group: its first query head (every head of the group reads the same keys and values)
      BertModel m = session.model();
      int size = e.receiver().kind() == CircuitNode.Kind.HEAD || m == null ? 1
          : m.config().numAttentionHeads() / m.config().parts().keyValueHeads();
      receiver.set(new Head(e.receiver().layer(), e.receiver().head() * size));
      mode.set(switch (e.input()) {
        case K -> Mode.K;
        case V -> Mode.V;
        default -> Mode.Q;
      });
    }
    Result o = r.other();
    boolean both = o != null && index < o.scores().edges().size() && o.scores().edges().get(index).equals(e);
    job.task("Patching " + e.label() + " exactly…", p -> {
      double x = r.analysis().exact(List.of(e), p::isCancelled).score(0);
      double y = both ? o.analysis().exact(List.of(e), p::isCancelled).score(0) : Double.NaN;
      return new double[] {x, y};
    })
        .onSuccess(x -> {
          otherCheck.set(both ? new EdgeCheck(e, o.scores().score(index), x[1]) : null);
          check.set(new EdgeCheck(e, estimate, x[0]));
          return checkText(r, check.get(), otherCheck.get());
        })
        .onFailure(ex -> "Could not patch " + e.label() + ": " + Session.message(ex))
        .start();
  }

  /** The clicked edge under the other ablation (its estimate and exact patch), when both ran. */
  public ReadOnlyObjectProperty<EdgeCheck> otherCheckProperty() {
    return otherCheck.getReadOnlyProperty();
  }

  /** The clicked edge's line: its exact patch beside its estimate, and which ablation; the other's after it. */
  public static String checkText(Result r, EdgeCheck c, EdgeCheck other) {
    String method = r.scores().method().toUpperCase(Locale.ROOT);
    String s = String.format(Locale.ROOT, "%s: exact patch %+.4f, %s estimate %+.4f (%s; %s ablation).",
        c.edge().label(), c.exact(), method, c.estimate(), agreement(c), r.ablationName());
    if (other != null && r.other() != null) {
      s += String.format(Locale.ROOT, " With %s ablation: exact %+.4f, estimate %+.4f.", r.other().ablationName(),
          other.exact(), other.estimate());
    }
    return s;
  }

  private static String agreement(EdgeCheck c) {
    return Math.signum(c.exact()) == Math.signum(c.estimate())
        ? "same sign, off by " + String.format(Locale.ROOT, "%.4f", Math.abs(c.exact() - c.estimate()))
        : "opposite signs";
  }

  /**
   * Composition scores of every mode from the weights and the three head detectors on repeated random tokens;
   * the detectors go to the main window's ranking of heads.
   */
  public void computeWeights() {
    BertModel m = session.model();
    if (m == null || job.isRunning()) {
      return;
    }
    if (m.config().numHiddenLayers() < 2) {
      job.say("Composition needs two layers at least.");
      return;
    }
    job.task("Composition scores and head detectors of " + m.name() + "…", p -> {
      Map<Mode, CompositionResult> c = CompositionScores.of(m, EnumSet.allOf(Mode.class));
      p.update("Head detectors on repeated random tokens", 0.5);
      return new Weights(c, HeadDetectors.detect(m, DETECT_LENGTH, DETECT_INPUTS, 0));
    })
        .progress(0)
        .onSuccess(w -> {
          weights.set(w);
          if (receiver.get() == null) {
            receiver.set(new Head(w.detectors().layers() - 1, 0));
          }
          publish(w.detectors());
          return "Composition scores of every pair and the head detectors: the detectors are in the main window's "
              + "ranking of heads; click a head node for the composition into it.";
        })
        .onFailure(e -> "Could not read the weights: " + Session.message(e))
        .start();
  }

  private void publish(HeadDetectors.Result d) {
    HeadDetectors.Kind[] kinds = HeadDetectors.Kind.values();
    String[] names = {"previous-token detector (Circuits)", "duplicate-token detector (Circuits)",
        "induction detector (Circuits)"};
    for (int k = 0; k < kinds.length && k < MEASURES.length; k++) {
      double[][] v = new double[d.layers()][d.heads()];
      for (int l = 0; l < d.layers(); l++) {
        for (int h = 0; h < d.heads(); h++) {
          v[l][h] = d.score(kinds[k], l, h);
        }
      }
      session.publish(new HeadMeasure(MEASURES[k], names[k], v, true));
    }
  }

  /**
   * The composition scores into the receiver head's chosen input from every head of an earlier layer,
   * {@code [layer][head]}; NaN for the receiver's own and later layers; null without scores or a receiver.
   */
  public double[][] compositionMatrix() {
    Weights w = weights.get();
    Head r = receiver.get();
    if (w == null || r == null) {
      return null;
    }
    CompositionResult c = w.composition().get(mode.get());
    double[][] v = new double[c.layers()][c.heads()];
    for (int l = 0; l < c.layers(); l++) {
      for (int h = 0; h < c.heads(); h++) {
        v[l][h] = l < r.layer() ? c.score(l, h, r.layer(), r.head()) : Double.NaN;
      }
    }
    return v;
  }

  /** The score of random matrices of the model's shapes, for the matrix's caption. */
  public String compositionCaption() {
    Head r = receiver.get();
    if (weights.get() == null || r == null) {
      return "Composition: press Weights to read the scores from the weights.";
    }
    double base = 1 / Math.sqrt(session.model().config().hiddenSize());
    return String.format(Locale.ROOT, "%s-composition into head %s from every earlier head (random matrices of these "
        + "shapes score about %.3f)", mode.get(), r, base);
  }

  /** The drawn graph as a figure: the shown edges (top N over the threshold), the method and the ablation named. */
  public Figure figure() {
    Result r = result.get();
    BertModel m = session.model();
    if (r == null || m == null) {
      throw new HeadScopeException("Run the edge scores first: the figure draws the top edges.");
    }
    return CircuitFigure.of(m.name(), cleanText() + " \u2016 " + corrupted.get().strip(), r.ablationName(), r.scores(),
        shown.get(), m.config().numHiddenLayers(), m.config().numAttentionHeads());
  }
}
