package io.headscope.app.gui.favor;

import io.headscope.analysis.favor.FavorAnalysis;
import io.headscope.analysis.favor.FavorCsv;
import io.headscope.analysis.favor.FavorHeads;
import io.headscope.analysis.favor.FavorInput;
import io.headscope.analysis.favor.RandomFeatures;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.MatrixFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The Linear attention screen (issue 18): on the current sentence, every head's FAVOR+ map error at each
 * m for ORF and iid features, computed by {@link FavorAnalysis} with the {@code favor} command's defaults
 * (so the CSV is the command's), the selected head's exact and FAVOR+ maps (draw 0) and their difference,
 * and its error-versus-m curve.
 */
public final class FavorViewModel extends ScreenModel<FavorViewModel.Computed> {
  /** The command's default m, draws and seed: the screen shows what {@code favor --text} writes. */
  public static final int[] FEATURES = {16, 32, 64, 128, 256};
  public static final int DRAWS = 8;
  public static final long SEED = 0;
  static final List<RandomFeatures.Kind> KINDS = List.of(RandomFeatures.Kind.ORF, RandomFeatures.Kind.IID);

  /** Which heads the predictions toggle puts on FAVOR+. */
  public enum Scope {
    HEAD("selected head"),
    PICKED("picked heads (Ctrl-click)"),
    LAYER("selected head's layer"),
    ALL("all heads");

    private final String label;

    Scope(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /** A finished run: the rows, every head's q/k/map for drawing, and what it was run on. */
  public record Computed(FavorAnalysis.Result result, FavorInput input, List<String> tokens, String sentence) {}

  /** The selected head's maps at the chosen m and kind: exact, FAVOR+ (draw 0) and FAVOR+ − exact. */
  public record HeadMaps(Head head, int m, RandomFeatures.Kind kind, float[][] exact, float[][] favor,
      float[][] difference, double error) {}

  private final IntegerProperty featureIndex = new SimpleIntegerProperty(2);
  private final ObjectProperty<RandomFeatures.Kind> kind = new SimpleObjectProperty<>(RandomFeatures.Kind.ORF);
  private final ReadOnlyObjectWrapper<Head> selected = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<HeadMaps> maps = new ReadOnlyObjectWrapper<>();
  private final ObjectProperty<Scope> scope = new SimpleObjectProperty<>(Scope.HEAD);
  private final BooleanProperty predictionsOnFavor = new SimpleBooleanProperty(false);

  /** The loaded model, whose shape the empty grid takes before the first compute. */
  public javafx.beans.value.ObservableValue<BertModel> modelProperty() {
    return session.modelProperty();
  }

  /** {layers, heads} of the loaded model; null when none is loaded. */
  public int[] modelShape() {
    BertModel m = session.model();
    return m == null ? null : new int[] {m.config().numHiddenLayers(), m.config().numAttentionHeads()};
  }

  public FavorViewModel(Session session) {
    super(session,
        "Approximates every head's map with FAVOR+ random features (Performer) and measures how far it is.");
    featureIndex.addListener((o, a, b) -> updateMaps());
    kind.addListener((o, a, b) -> updateMaps());
    selected.addListener((o, a, b) -> updateMaps());
    result.addListener((o, a, b) -> updateMaps());
    // the toggle follows m, the kind, the scope and the selection while it is on
    predictionsOnFavor.addListener((o, a, b) -> applyToPredictions());
    featureIndex.addListener((o, a, b) -> applyToPredictions());
    kind.addListener((o, a, b) -> applyToPredictions());
    scope.addListener((o, a, b) -> applyToPredictions());
    session.selectedProperty().addListener((o, a, b) -> applyToPredictions());
    session.selectionProperty().addListener((o, a, b) -> applyToPredictions());
    // another model starts with every head exact
    session.favorProperty().addListener((o, a, b) -> {
      if (b.isEmpty() && predictionsOnFavor.get() && !headsInScope().isEmpty()) {
        predictionsOnFavor.set(false);
      }
    });
  }
  @Override
  protected void clear() {
    super.clear();
    maps.set(null);
  }

  /** Which heads the predictions toggle puts on FAVOR+. */
  public ObjectProperty<Scope> scopeProperty() {
    return scope;
  }

  /**
   * On: the main window's current sentence runs with the heads in scope on FAVOR+ at the chosen m and
   * kind (draw 1, the one the maps here show), and the predictions panel shows the change, exactly as
   * switching heads off does; off: every head exact again.
   */
  public BooleanProperty predictionsOnFavorProperty() {
    return predictionsOnFavor;
  }

  /** The heads the toggle would put on FAVOR+ now. */
  public Set<Head> headsInScope() {
    BertModel m = session.model();
    Head sel = session.selected();
    Set<Head> heads = new TreeSet<>();
    if (m == null) {
      return heads;
    }
    int layers = m.config().numHiddenLayers();
    int perLayer = m.config().numAttentionHeads();
    switch (scope.get()) {
      case HEAD -> {
        if (sel != null) {
          heads.add(sel);
        }
      }
      case PICKED -> heads.addAll(session.selection().isEmpty() && sel != null ? Set.of(sel) : session.selection());
      case LAYER -> {
        for (int h = 0; sel != null && h < perLayer; h++) {
          heads.add(new Head(sel.layer(), h));
        }
      }
      case ALL -> {
        for (int l = 0; l < layers; l++) {
          for (int h = 0; h < perLayer; h++) {
            heads.add(new Head(l, h));
          }
        }
      }
    }
    return heads;
  }

  /** The heads the main window runs on FAVOR+ now (none when the toggle is off). */
  public ReadOnlyObjectProperty<FavorHeads> favorInUseProperty() {
    return session.favorProperty();
  }

  /** What the toggle asks of the session now (none when it is off). */
  public FavorHeads favorHeads() {
    return predictionsOnFavor.get() ? new FavorHeads(headsInScope(), features(), kind.get(), SEED, 0) : FavorHeads.NONE;
  }

  private void applyToPredictions() {
    session.setFavor(favorHeads());
  }

  /** Ctrl-click: adds a head to the picked heads or takes it out (the main grid's multi-selection). */
  public void togglePicked(int layer, int head) {
    Head h = new Head(layer, head);
    Set<Head> next = new TreeSet<>(session.selection());
    if (!next.remove(h)) {
      next.add(h);
    }
    session.setSelection(next);
    selected.set(h);
    session.select(h);
  }

  /** Whether a head runs on FAVOR+ in the main window now. */
  public boolean onFavor(int layer, int head) {
    return session.favor().heads().contains(new Head(layer, head));
  }

  /** Index into {@link #FEATURES} of the m the grid and maps show. */
  public IntegerProperty featureIndexProperty() {
    return featureIndex;
  }

  public int features() {
    return FEATURES[Math.max(0, Math.min(FEATURES.length - 1, featureIndex.get()))];
  }

  public ObjectProperty<RandomFeatures.Kind> kindProperty() {
    return kind;
  }

  public ReadOnlyObjectProperty<Head> selectedProperty() {
    return selected.getReadOnlyProperty();
  }

  public ReadOnlyObjectProperty<HeadMaps> mapsProperty() {
    return maps.getReadOnlyProperty();
  }

  /** Map errors of every head on the current input, on the worker. */
  public void run() {
    if (noInputOrBusy()) {
      return;
    }
    BertModel m = session.model();
    AttentionTrace t = session.trace();
    var options = new FavorAnalysis.Options(FEATURES, DRAWS, SEED, KINDS, false);
    String sentence = String.join(" ", t.tokens());
    List<String> tokens = List.copyOf(t.tokens());
    int maps = t.layers() * t.heads() * FEATURES.length * KINDS.size() * DRAWS;
    job.task("Computing " + maps + " FAVOR+ maps…",
        p -> new Computed(FavorAnalysis.run(m, List.of(t.encoding()), options, p::update, p::isCancelled),
            FavorInput.capture(m, t.encoding()), tokens, sentence))
        .onSuccess(c -> {
          result.set(c);
          if (selected.get() == null) {
            selected.set(new Head(0, 0));
          }
          return String.format(Locale.ROOT, "%d heads × %d m × %d draws, ORF and iid. Model mean error at m = %d: "
              + "ORF %.3f, iid %.3f. Click a cell to see the head's maps.", t.layers() * t.heads(), FEATURES.length,
              DRAWS, features(), modelError(RandomFeatures.Kind.ORF), modelError(RandomFeatures.Kind.IID));
        })
        .onFailure(e -> "FAVOR+ failed.")
        .start();
  }

  /** The row of a head (0-based) at m and kind; null before a run. */
  private FavorAnalysis.Row row(int layer, int head, int m, RandomFeatures.Kind k) {
    return csvRow(layer + 1, head + 1, m, k);
  }

  /** A row by the CSV's numbering: 1-based, -1 for a whole layer's head or the model's layer. */
  private FavorAnalysis.Row csvRow(int layer, int head, int m, RandomFeatures.Kind k) {
    Computed c = result.get();
    if (c == null) {
      return null;
    }
    for (FavorAnalysis.Row r : c.result().rows()) {
      if (r.layer() == layer && r.head() == head && r.features() == m && r.kind() == k) {
        return r;
      }
    }
    return null;
  }

  /** A head's map error (mean over draws) at the chosen m and kind; NaN before a run. */
  public double value(int layer, int head) {
    FavorAnalysis.Row r = row(layer, head, features(), kind.get());
    return r == null ? Double.NaN : r.mapError();
  }

  private double modelError(RandomFeatures.Kind k) {
    FavorAnalysis.Row r = csvRow(-1, -1, features(), k);
    return r == null ? Double.NaN : r.mapError();
  }

  /** A head's error at each of {@link #FEATURES}, {@code [kind][m]} in the order ORF, iid. */
  public double[][] curve(int layer, int head) {
    double[][] v = new double[KINDS.size()][FEATURES.length];
    for (int k = 0; k < KINDS.size(); k++) {
      for (int i = 0; i < FEATURES.length; i++) {
        FavorAnalysis.Row r = row(layer, head, FEATURES[i], KINDS.get(k));
        v[k][i] = r == null ? Double.NaN : r.mapError();
      }
    }
    return v;
  }

  /** For the line under the pointer. */
  public String describe(int layer, int head) {
    double v = value(layer, head);
    if (Double.isNaN(v)) {
      return "";
    }
    FavorAnalysis.Row r = row(layer, head, features(), kind.get());
    return String.format(Locale.ROOT, "head %s at m = %d (%s): map error %.3f ± %.3f over %d draws",
        new Head(layer, head), features(), kind.get().title(), v, r.mapErrorSd(), DRAWS);
  }

  /** Clicking a cell shows the head's maps here and selects it in the main view. */
  public void select(int layer, int head) {
    Head h = new Head(layer, head);
    selected.set(h);
    session.select(h);
  }

  private void updateMaps() {
    Computed c = result.get();
    Head h = selected.get();
    if (c == null || h == null) {
      maps.set(null);
      return;
    }
    int m = features();
    float[][] exact = c.input().exact(h.layer(), h.head());
    double[][] fav = c.input().favor(h.layer(), h.head(), m, kind.get(), SEED, 0);
    int n = exact.length;
    float[][] f = new float[n][n];
    float[][] d = new float[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        f[i][j] = (float) fav[i][j];
        d[i][j] = f[i][j] - exact[i][j];
      }
    }
    maps.set(new HeadMaps(h, m, kind.get(), exact, f, d, io.headscope.analysis.favor.Favor.error(exact, fav)));
  }

  /** The rows the CSV export writes (the {@code favor} command's rows for this input). */
  public List<FavorAnalysis.Row> csv() {
    Computed c = result.get();
    if (c == null) {
      throw new HeadScopeException("Compute the FAVOR+ errors first.");
    }
    return c.result().rows();
  }

  /** Writes {@code favor.csv} through the command's writer. */
  public static void writeCsv(List<FavorAnalysis.Row> rows, Path file) {
    SafeFiles.writeAtomically(file, true, out -> FavorCsv.write(rows, out));
  }

  /** The grid at the chosen m and kind as a figure (PNG/SVG through the figure renderer). */
  public Figure figure() {
    Computed c = result.get();
    if (c == null) {
      throw new HeadScopeException("Compute the FAVOR+ errors first.");
    }
    int layers = c.input().layers();
    int heads = c.input().heads();
    double[][] v = new double[layers][heads];
    List<String> rows = new ArrayList<>();
    List<String> cols = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      rows.add("L" + (l + 1));
      for (int h = 0; h < heads; h++) {
        v[l][h] = value(l, h);
      }
    }
    for (int h = 0; h < heads; h++) {
      cols.add("h" + (h + 1));
    }
    String model = session.model() == null ? "" : session.model().name();
    return MatrixFigure.of(model + " · FAVOR+ map error at m = " + features() + " (" + kind.get().title() + ")",
        List.of("mean over query rows of the total-variation distance to the softmax map, mean of " + DRAWS
            + " draws (Choromanski et al. 2020)"), c.sentence(), rows, cols, v, false, "map error (0 = exact, 1 = disjoint)",
        30, true);
  }
}
