package io.headscope.app.gui.head;

import io.headscope.app.render.HeadMatrix.Display;
import io.headscope.app.render.HeadMatrix.PairFilter;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.gui.session.InputSaliency;
import io.headscope.app.gui.session.Session;
import io.headscope.app.render.MapsShown;
import io.headscope.app.render.RolloutCache;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.value.ObservableValue;

/**
 * The head view's state: which quantity and which segment pair to show for the selected head, the
 * matrix that results, and what is under the pointer. Derived from the main view model's trace and
 * selection; computing a matrix is cheap array work, so it runs here, not on the worker.
 */
public final class HeadViewModel {
  private final ObservableValue<AttentionTrace> trace;
  private final ObservableValue<AttentionTrace> asRun;
  private final ObservableValue<MapsShown> maps;
  private final ObservableValue<Head> head;
  private final javafx.beans.property.BooleanProperty words;
  private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper("No head selected");
  private final ObjectProperty<Display> display = new SimpleObjectProperty<>(Display.WEIGHTS);
  private final ObjectProperty<PairFilter> filter = new SimpleObjectProperty<>(PairFilter.ALL);
  private final ReadOnlyObjectWrapper<HeadMatrix> matrix = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyBooleanWrapper pair = new ReadOnlyBooleanWrapper();
  private final ReadOnlyStringWrapper hover = new ReadOnlyStringWrapper("");
  private final ReadOnlyIntegerWrapper hoveredToken = new ReadOnlyIntegerWrapper(-1);
  /** Computes long inputs' rollouts off the FX thread; null: everything inline (tests without a session). */
  private io.headscope.app.gui.exec.Worker worker;
  private NeuronViewModel neuron;
  /** The session's model, for what its family changes in the view (null in tests without a session). */
  private ObservableValue<io.headscope.model.BertModel> model;
  /** The session's encoder-decoder, when one is loaded (null in tests without a session). */
  private ObservableValue<io.headscope.app.gui.session.TwoStacks> twoStacks;
  private final ReadOnlyBooleanWrapper encoderDecoder = new ReadOnlyBooleanWrapper();
  /** The session's latest token saliency (null in tests without a session). */
  private ObservableValue<InputSaliency> saliency;
  private final ReadOnlyObjectWrapper<SaliencyStrip> strip = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyStringWrapper stripNote = new ReadOnlyStringWrapper("");

  /**
   * Per-token saliency drawn as a thin strip over the map's columns (the key tokens), one value per column.
   *
   * @param values one per column of the shown matrix: the token's score, or over words the sum of its
   *     wordpieces' scores (the attributions add up)
   * @param max the largest magnitude over the whole input, the colour scale's end (signed, diverging)
   */
  public record SaliencyStrip(double[] values, double max) {}

  /** The head view of a session: its traces, its selected head and its choice of maps. */
  public HeadViewModel(Session session) {
    this(session.traceProperty(), session.ablatedProperty(), session.mapsShownProperty(),
        session.selectedProperty(), session.wordsShownProperty());
    this.worker = session.worker();
    this.model = session.modelProperty();
    this.neuron = new NeuronViewModel(session);
    this.saliency = session.saliencyProperty();
    saliency.addListener((o, a, b) -> updateStrip());
    this.twoStacks = session.twoStacksProperty();
    twoStacks.addListener((o, a, b) -> {
      encoderDecoder.set(b != null);
      if (b != null) {
        display.set(Display.WEIGHTS); // the one quantity the encoder-decoder's runs give
        words.set(false);
      }
      update();
    });
    encoderDecoder.set(twoStacks.getValue() != null);
    updateStrip();
  }

  /**
   * Whether the head view shows an encoder-decoder's maps (weights over tokens only: the view disables the other
   * displays, the pair filter and words).
   */
  public ReadOnlyBooleanProperty encoderDecoderProperty() {
    return encoderDecoder.getReadOnlyProperty();
  }

  /** The saliency strip over the map's columns, or null: none computed, or computed for another input. */
  public ReadOnlyObjectProperty<SaliencyStrip> stripProperty() {
    return strip.getReadOnlyProperty();
  }

  /** What the strip is ("" without one), or that the saliency belongs to an earlier input. */
  public ReadOnlyStringProperty stripNoteProperty() {
    return stripNote.getReadOnlyProperty();
  }

  /**
   * The strip follows the shown matrix: its columns are the keys, so a filtered pair or words change it; an
   * input whose ids differ from the saliency's has no strip (its tokens are not those scores'), only a note.
   */
  private void updateStrip() {
    InputSaliency s = saliency == null ? null : saliency.getValue();
    HeadMatrix m = matrix.get();
    AttentionTrace t = trace.getValue();
    if (s == null || m == null || t == null) {
      strip.set(null);
      stripNote.set("");
      return;
    }
    if (!s.isFor(t.encoding().ids())) {
      strip.set(null);
      stripNote.set("Saliency strip hidden: it was computed for an earlier input (run Causes \u203a Logit lens again).");
      return;
    }
    double[] scores = s.result().scores();
    double[] full = scores;
    if (m.words()) {
      io.headscope.analysis.linguistics.WordAttention.Words w = io.headscope.analysis.linguistics.WordAttention.of(t.tokens());
      full = new double[w.words().size()];
      for (int i = 0; i < scores.length; i++) {
        full[w.wordOf()[i]] += scores[i];
      }
    }
    double max = 0;
    for (double v : full) {
      max = Math.max(max, Math.abs(v));
    }
    strip.set(new SaliencyStrip(java.util.Arrays.copyOfRange(full, m.colOffset(), m.colOffset() + m.cols()), max));
    stripNote.set(String.format(java.util.Locale.ROOT, "Strip over the tokens: saliency (%s, intact model) for "
        + "\u201c%s\u201d%s from Causes \u203a Logit lens; blue raises it, red lowers it.", s.result().method(),
        s.target(), s.contrast().isEmpty() ? "" : " \u2212 \u201c" + s.contrast() + "\u201d"));
  }


  /** The neuron view of the selected head (null for a head view without a session). */
  public NeuronViewModel neuron() {
    return neuron;
  }

  /**
   * Whether the model attends causally (GPT-2): a query never sees a later key, so the view draws those
   * cells as not allowed rather than as zero attention.
   */
  public boolean causal() {
    io.headscope.app.gui.session.TwoStacks t = twoStacks == null ? null : twoStacks.getValue();
    if (t != null) {
      return t.kind() == io.headscope.model.core.AttentionKind.DECODER; // the decoder's self-attention is causal
    }
    return model != null && model.getValue() != null && model.getValue().config().family().causal();
  }

  /** As below, always on wordpieces. */
  public HeadViewModel(ObservableValue<AttentionTrace> trace, ObservableValue<AttentionTrace> asRun,
      ObservableValue<MapsShown> maps, ObservableValue<Head> head) {
    this(trace, asRun, maps, head, new javafx.beans.property.SimpleBooleanProperty(false));
  }

  /**
   * @param trace the intact trace
   * @param asRun the trace with the switched-off heads (maps as run)
   * @param maps which of them (or their difference) to show
   * @param head the head to show
   * @param words whether to show word-level maps (the words switch)
   */
  public HeadViewModel(ObservableValue<AttentionTrace> trace, ObservableValue<AttentionTrace> asRun,
      ObservableValue<MapsShown> maps, ObservableValue<Head> head, javafx.beans.property.BooleanProperty words) {
    this.trace = trace;
    this.asRun = asRun;
    this.maps = maps;
    this.head = head;
    this.words = words;
    words.addListener((o, a, b) -> update());
    trace.addListener((o, a, b) -> update());
    asRun.addListener((o, a, b) -> update());
    maps.addListener((o, a, b) -> update());
    head.addListener((o, a, b) -> update());
    display.addListener((o, a, b) -> update());
    filter.addListener((o, a, b) -> update());
    matrix.addListener((o, a, b) -> updateStrip());
    update();
  }

  private void update() {
    AttentionTrace t = trace.getValue();
    AttentionTrace run = asRun.getValue() == null ? t : asRun.getValue();
    Head h = head.getValue();
    pair.set(t != null && t.encoding().isPair());
    if (t == null || h == null || h.layer() >= t.layers() || h.head() >= t.heads()) {
      matrix.set(null);
      title.set(h == null ? "No head selected" : "Head " + h + "  (layer " + (h.layer() + 1) + ", head "
          + (h.head() + 1) + ")  ·  type a sentence to see its map");
      return;
    }
    // the as-run trace may lag the intact one for a moment (they are set one after the other)
    MapsShown shown = run.encoding() == t.encoding() || java.util.Arrays.equals(run.encoding().ids(), t.encoding().ids())
        ? maps.getValue() : MapsShown.INTACT;
    if (display.get() == Display.ROLLOUT && worker != null
        && (RolloutCache.needsWorker(t) || (shown != MapsShown.INTACT && RolloutCache.needsWorker(run)))) {
      // a long input's rollout takes a second or more: on the worker, then shown
      matrix.set(null);
      title.set("Head " + h + "  ·  computing the rollout of " + t.tokens().size() + " tokens…");
      AttentionTrace intact = t;
      worker.submit(p -> {
        RolloutCache.of(intact);
        return shown == MapsShown.INTACT ? null : RolloutCache.of(run);
      }, r -> {
        if (trace.getValue() == intact) {
          update();
        }
      }, e -> title.set("Rollout failed: " + e.getMessage()));
      return;
    }
    io.headscope.app.gui.session.TwoStacks two = twoStacks == null ? null : twoStacks.getValue();
    if (two != null && two.intact() != null && h.layer() < two.intact().maps(two.kind()).length
        && h.head() < two.intact().maps(two.kind())[h.layer()].length) {
      // an encoder-decoder's head: the shown kind's map, query tokens by key tokens (target by source for cross)
      HeadMatrix m = TwoStacksMatrix.of(two, shown, h);
      matrix.set(m);
      title.set(describe(m, run.mask()).replaceFirst("^Head ", two.kind().label.substring(0, 1).toUpperCase(
          java.util.Locale.ROOT) + two.kind().label.substring(1) + " head ") + "  ·  "
          + (two.kind() == io.headscope.model.core.AttentionKind.CROSS ? "rows: target queries, columns: source keys"
              : two.kind() == io.headscope.model.core.AttentionKind.DECODER ? "target × target (causal)"
              : "source × source"));
      hover.set("");
      return;
    }
    HeadMatrix m = HeadMatrix.of(t, run, shown, h, display.get(), filter.get(), words());
    matrix.set(m);
    title.set(describe(m, run.mask()) + (m.words() ? "  ·  words" : ""));
    hover.set("");
  }

  /** "Head 8-10 (layer 9, head 11) · as run, 2 heads off (zero)": what the map is, for the title. */
  static String describe(HeadMatrix m, HeadMask off) {
    Head h = m.head();
    String what = switch (m.maps()) {
      case INTACT -> off.isEmpty() ? "" : "  ·  intact model";
      case AS_RUN -> off.isEmpty() ? "" : "  ·  as run with " + heads(off);
      case DIFFERENCE -> off.isEmpty() ? "  ·  difference (no head is off: all zero)"
          : "  ·  as run − intact, " + heads(off);
    };
    return "Head " + h + "  (layer " + (h.layer() + 1) + ", head " + (h.head() + 1) + ")" + what
        + (off.isOff(h) && m.maps() != MapsShown.INTACT ? "  ·  this head is off" : "");
  }

  private static String heads(HeadMask off) {
    int n = off.off().size();
    return n + (n == 1 ? " head off (" : " heads off (") + off.mode().name().toLowerCase(java.util.Locale.ROOT) + ")";
  }

  /** What the head view's title says: the head, and which maps when heads are off. */
  public ReadOnlyStringProperty titleProperty() {
    return title.getReadOnlyProperty();
  }

  /**
   * Every head of the shown head's layer, as shown (for the line drawing's overlay of a whole layer,
   * as BertViz draws it), or empty.
   */
  public java.util.List<HeadMatrix> layerMatrices() {
    HeadMatrix m = matrix.get();
    AttentionTrace t = trace.getValue();
    if (m == null || t == null) {
      return java.util.List.of();
    }
    AttentionTrace run = asRun.getValue() == null ? t : asRun.getValue();
    java.util.List<HeadMatrix> out = new java.util.ArrayList<>();
    io.headscope.app.gui.session.TwoStacks two = twoStacks == null ? null : twoStacks.getValue();
    if (two != null && two.intact() != null) {
      // an encoder-decoder's layer: its kind's maps, query tokens by key tokens (cross: target by source)
      for (int h = 0; h < two.intact().maps(two.kind())[m.head().layer()].length; h++) {
        out.add(TwoStacksMatrix.of(two, m.maps(), new Head(m.head().layer(), h)));
      }
      return out;
    }
    for (int h = 0; h < t.heads(); h++) {
      out.add(HeadMatrix.of(t, run, m.maps(), new Head(m.head().layer(), h), m.display(), m.filter(), m.words()));
    }
    return out;
  }

  /** Weights or norm-weighted attention (user choice). */
  public ObjectProperty<Display> displayProperty() {
    return display;
  }

  /** Segment pair shown (user choice; ignored for a single sentence). */
  public ObjectProperty<PairFilter> filterProperty() {
    return filter;
  }

  public ReadOnlyObjectProperty<HeadMatrix> matrixProperty() {
    return matrix.getReadOnlyProperty();
  }

  /** Whether the input is a pair (the view enables the pair filter). */
  public ReadOnlyBooleanProperty pairProperty() {
    return pair.getReadOnlyProperty();
  }

  /** The value under the pointer with both tokens named. */
  public ReadOnlyStringProperty hoverProperty() {
    return hover.getReadOnlyProperty();
  }

  private boolean words() {
    return words.get();
  }

  /** Whether the maps are shown over words (the session's switch, which the grid follows too). */
  public javafx.beans.property.BooleanProperty wordsProperty() {
    return words;
  }

  /** The token (index into the input) whose lines the line drawing highlights, or -1. */
  public ReadOnlyIntegerProperty hoveredTokenProperty() {
    return hoveredToken.getReadOnlyProperty();
  }

  /** The pointer is over cell (row, col) of the matrix, or outside it (negative). */
  public void pointAt(int row, int col) {
    HeadMatrix m = matrix.get();
    if (m != null && causal() && row >= 0 && col >= 0 && row < m.rows() && col < m.cols()
        && m.colOffset() + col > m.rowOffset() + row) {
      hover.set("\"" + m.rowTokens().get(row) + "\" cannot attend to \"" + m.colTokens().get(col)
          + "\": a causal model sees only the tokens before a token and the token itself");
      return;
    }
    SaliencyStrip st = strip.get();
    hover.set(m == null ? "" : m.describe(row, col) + (st == null || col < 0 || col >= st.values().length ? ""
        : String.format(java.util.Locale.ROOT, "  \u00b7  saliency of \u201c%s\u201d %+.4f", m.colTokens().get(col),
            st.values()[col])));
  }

  /**
   * The pointer is over a token of the line drawing (index into the input's tokens, or its words when
   * the map is over words), or -1.
   */
  public void pointAtToken(int token) {
    hoveredToken.set(token);
    HeadMatrix m = matrix.get();
    if (m == null || token < 0) {
      hover.set("");
      return;
    }
    int row = token - m.rowOffset();
    if (row < 0 || row >= m.rows()) {
      hover.set("");
      return;
    }
    int best = 0;
    for (int j = 1; j < m.cols(); j++) {
      if (m.values()[row][j] > m.values()[row][best]) {
        best = j;
      }
    }
    hover.set(String.format(java.util.Locale.ROOT, "%s  \"%s\" attends most to \"%s\" (%.3f)",
        m.head(), m.rowTokens().get(row), m.colTokens().get(best), m.values()[row][best]));
  }
}
