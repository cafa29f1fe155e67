package io.headscope.app.gui.flow;

import io.headscope.analysis.flow.AttentionFlow;
import io.headscope.analysis.flow.JacobianJson;
import io.headscope.analysis.flow.MapCorrelation;
import io.headscope.analysis.flow.Rollout;
import io.headscope.analysis.flow.RolloutJson;
import io.headscope.analysis.flow.TokenJacobian;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.MatrixFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The Information flow view of the current input (METHODS.md "Attention rollout / information flow"):
 * Abnar &amp; Zuidema's rollout after a chosen layer and their attention flow into the last layer's outputs,
 * on the maps as the model ran them (heads switched off as switched off, like {@code rollout --disable}),
 * computed on the worker and drawn as the head view draws a map ({@link HeadMatrix}, rows: outputs j,
 * columns: inputs i); and, on request, each layer's token-to-token Jacobian norms (the estimate with k = 32)
 * with their correlation with the layer's attention.
 */
public final class FlowViewModel extends ScreenModel<FlowViewModel.Result> {
  /** Flow solves n^2 maximum flows over a graph of (L + 1) n nodes: beyond this many tokens, rollout only. */
  public static final int MAX_FLOW_TOKENS = 40;

  /** Which matrix is drawn. */
  public enum Show {
    ROLLOUT("Rollout after layer"),
    FLOW("Flow to the last layer (row-normalised)"),
    FLOW_RAW("Flow to the last layer (raw)"),
    JACOBIAN("Jacobian ‖∂h_j/∂h_i‖ at layer (estimate, k = 32)");

    private final String label;

    Show(String label) {
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /** What a computation gives: the trace it ran on, rollout of every layer, the flow (null when skipped). */
  public record Result(AttentionTrace trace, double[][][] rollout, AttentionFlow flow) {}

  private final ObjectProperty<Show> show = new SimpleObjectProperty<>(Show.ROLLOUT);
  private final IntegerProperty layer = new SimpleIntegerProperty(1);
  private final ReadOnlyObjectWrapper<HeadMatrix> matrix = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<TokenJacobian> jacobian = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyStringWrapper correlation = new ReadOnlyStringWrapper("");

  public FlowViewModel(Session session) {
    super(session,
        "Where information ends up across the layers, for the current input: press Compute.");
    session.ablatedProperty().addListener((o, a, b) -> {
      if (result.get() != null && b != result.get().trace()) {
        job.say("The input or the switched-off heads changed: press Compute for this one.");
      }
    });
    show.addListener((o, a, b) -> update());
    layer.addListener((o, a, b) -> update());
    result.addListener((o, a, b) -> update());
    jacobian.addListener((o, a, b) -> update());
  }
  @Override
  protected void clear() {
    super.clear();
    jacobian.set(null);
  }

  /** The Jacobian norms of the current input, once computed ({@link #computeJacobian}). */
  public ReadOnlyObjectProperty<TokenJacobian> jacobianProperty() {
    return jacobian.getReadOnlyProperty();
  }

  /** For the Jacobian: its correlation with the layer's attention and norm-weighted map; else empty. */
  public ReadOnlyStringProperty correlationProperty() {
    return correlation.getReadOnlyProperty();
  }

  /**
   * The token-to-token Jacobian norms of every layer (METHODS.md), the random-projection estimate with
   * k = {@link TokenJacobian#DEFAULT_SAMPLES} and seed 0 (as {@code headscope jacobian --samples 32}), with the
   * heads switched off as they are, on the worker with progress and Cancel.
   */
  public void computeJacobian() {
    BertModel m = session.model();
    AttentionTrace t = session.trace();
    if (m == null || t == null) {
      job.say("Type a sentence first.");
      return;
    }
    HeadMask mask = session.mask();
    int k = TokenJacobian.DEFAULT_SAMPLES;
    job.task("Jacobian norms of " + t.layers() + " layers, k = " + k + " samples per output token…",
        p -> TokenJacobian.of(m, t.encoding(), mask, k, 0, f -> p.update("Backward passes", f), p::isCancelled))
        .progress(0)
        .onSuccess(j -> {
          if (layer.get() < 1 || layer.get() > j.norms().length) {
            layer.set(j.norms().length);
          }
          jacobian.set(j);
          show.set(Show.JACOBIAN);
          return "Jacobian norms of " + j.norms().length + " layers: random-projection estimate, k = " + j.samples()
              + " (relative standard deviation of J² at most " + Math.round(100 * Math.sqrt(2.0 / j.samples()))
              + "%).";
        })
        .onFailure(e -> "The Jacobian failed: " + Session.message(e))
        .start();
  }

  public ObjectProperty<Show> showProperty() {
    return show;
  }

  /** The layer (1..L) whose rollout is drawn. */
  public IntegerProperty layerProperty() {
    return layer;
  }

  /** What is drawn: the chosen matrix of the result, or null. */
  public ReadOnlyObjectProperty<HeadMatrix> matrixProperty() {
    return matrix.getReadOnlyProperty();
  }

  /** Rollout of every layer and, up to {@link #MAX_FLOW_TOKENS} tokens, the flow; on the maps as run. */
  public void compute() {
    AttentionTrace t = session.ablated() != null ? session.ablated() : session.trace();
    if (t == null) {
      job.say("Type a sentence first.");
      return;
    }
    int n = t.tokens().size();
    boolean withFlow = n <= MAX_FLOW_TOKENS;
    job.task("Rollout" + (withFlow ? " and flow" : "") + " of " + n + " tokens…", p -> {
      double[][][] r = Rollout.of(t); // full or of summaries (maps on demand)
      if (p.isCancelled()) {
        throw new CancellationException();
      }
      return new Result(t, r, withFlow ? AttentionFlow.of(t) : null);
    })
        .onSuccess(r -> {
          if (layer.get() < 1 || layer.get() > r.rollout().length || result.get() == null) {
            layer.set(r.rollout().length);
          }
          result.set(r);
          return "Rollout of " + r.rollout().length + " layers on " + n + " tokens"
              + (r.trace().mask().isEmpty() ? "" : ", as run with " + r.trace().mask().off().size() + " head(s) off")
              + (withFlow ? "; flow into layer " + r.rollout().length + "'s outputs."
                  : "; flow skipped: it is computed up to " + MAX_FLOW_TOKENS + " tokens.");
        })
        .onFailure(e -> "Rollout failed: " + Session.message(e))
        .start();
  }

  /** The values drawn: {@code [j][i]}, output j, input i; null when there is nothing for the choice. */
  public double[][] values() {
    if (show.get() == Show.JACOBIAN) {
      TokenJacobian j = jacobian.get();
      return j == null ? null : j.norms()[Math.max(1, Math.min(layer.get(), j.norms().length)) - 1];
    }
    Result r = result.get();
    if (r == null) {
      return null;
    }
    return switch (show.get()) {
      case ROLLOUT -> r.rollout()[Math.max(1, Math.min(layer.get(), r.rollout().length)) - 1];
      case FLOW -> r.flow() == null ? null : r.flow().normalized();
      case FLOW_RAW -> r.flow() == null ? null : r.flow().raw();
      case JACOBIAN -> null;
    };
  }

  private void update() {
    double[][] v = values();
    correlation.set(show.get() == Show.JACOBIAN && v != null ? correlationText() : "");
    if (v == null) {
      matrix.set(null);
      return;
    }
    List<String> tokens = show.get() == Show.JACOBIAN ? jacobian.get().input().tokens() : result.get().trace().tokens();
    float[][] f = new float[v.length][v.length];
    float max = 1e-12f;
    for (int j = 0; j < v.length; j++) {
      for (int i = 0; i < v.length; i++) {
        f[j][i] = (float) v[j][i];
        max = Math.max(max, f[j][i]);
      }
    }
    matrix.set(new HeadMatrix(null, HeadMatrix.Display.WEIGHTS, HeadMatrix.PairFilter.ALL, f, tokens, tokens, 0, 0,
        max));
  }

  /** What the chosen matrix is, for the title and the figure. */
  public String what() {
    return switch (show.get()) {
      case ROLLOUT -> "rollout after layer " + layer.get();
      case FLOW -> "attention flow into the last layer (row-normalised)";
      case FLOW_RAW -> "attention flow into the last layer (raw max-flow)";
      case JACOBIAN -> "Jacobian norms of layer " + layer.get() + " (estimate, k = " + jacobian.get().samples() + ")";
    };
  }

  /** How well the layer's attention explains the shown Jacobian norms (off the diagonal). */
  private String correlationText() {
    TokenJacobian j = jacobian.get();
    MapCorrelation c = j.correlations().get(Math.max(1, Math.min(layer.get(), j.norms().length)) - 1);
    return String.format(Locale.ROOT, "Layer %d, off the diagonal: Spearman %.3f, Pearson %.3f with the mean attention "
        + "map; Spearman %.3f, Pearson %.3f with the norm-weighted map (Kobayashi).", c.layer(), c.spearmanAttention(),
        c.pearsonAttention(), c.spearmanNorm(), c.pearsonNorm());
  }

  /** The read-out of the cell under the pointer (row: output j, column: input i). */
  public String describe(int row, int col) {
    HeadMatrix m = matrix.get();
    if (m == null || row < 0 || col < 0 || row >= m.rows() || col >= m.cols()) {
      return "";
    }
    return String.format(Locale.ROOT, "%s: output %d \"%s\" ← input %d \"%s\": %.4f", what(), row,
        m.rowTokens().get(row), col, m.colTokens().get(col), m.values()[row][col]);
  }

  /** The drawn matrix as a figure (PNG 300 dpi or SVG), through the one figure renderer. */
  public Figure figure() {
    HeadMatrix m = matrix.get();
    if (m == null) {
      throw new HeadScopeException(result.get() == null ? "Press Compute first." : "No flow for this input.");
    }
    double[][] v = values();
    boolean jac = show.get() == Show.JACOBIAN;
    String model = session.model() == null ? "" : session.model().name();
    String[] typed = session.inputText();
    String input = typed[1].isEmpty() ? typed[0] : typed[0] + " ‖ " + typed[1];
    HeadMask mask = jac ? jacobian.get().mask() : result.get().trace().mask();
    return MatrixFigure.of(model + " · " + what(),
        List.of(jac ? "||d h^l_j / d h^(l-1)_i||_F; rows: output token j, columns: input token i (METHODS.md)"
            : "rows: output token j, columns: input token i; Abnar & Zuidema 2020 (METHODS.md)",
            jac ? correlation.get() : "maps as run" + (mask.isEmpty() ? "" : ", heads off: " + mask.off())),
        input, m.rowTokens(), m.colTokens(), v, false, jac ? "Jacobian norm" : "share of output j from input i",
        v.length <= 24 ? 26 : 12, v.length <= 24);
  }

  /** Writes the JSON of {@code headscope jacobian} (the same writer). */
  public static void writeJacobianJson(String model, TokenJacobian j, Path file) {
    if (j == null) {
      throw new HeadScopeException("Compute the Jacobian first.");
    }
    SafeFiles.writeAtomically(file, true, out -> JacobianJson.write(model, j, out));
  }

  /** The model's name, for the Jacobian JSON. */
  public String modelName() {
    return session.model() == null ? "" : session.model().name();
  }

  /** Writes the JSON of {@code headscope rollout --flow} (without the flow fields when it was skipped). */
  public static void writeJson(Result r, Path file) {
    if (r == null) {
      throw new HeadScopeException("Press Compute first.");
    }
    SafeFiles.writeAtomically(file, true, out -> RolloutJson.write(r.trace(), r.rollout(), r.flow(), out));
  }
}
