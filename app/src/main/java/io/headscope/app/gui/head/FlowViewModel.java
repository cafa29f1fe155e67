package io.headscope.app.gui.head;

import io.headscope.analysis.flow.AttentionFlow;
import io.headscope.analysis.flow.Rollout;
import io.headscope.analysis.flow.RolloutJson;
import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.session.Session;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.MatrixFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.HeadScopeException;
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
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The Information flow view of the current input (METHODS.md "Attention rollout / information flow"):
 * Abnar &amp; Zuidema's rollout after a chosen layer and their attention flow into the last layer's outputs,
 * on the maps as the model ran them (heads switched off as switched off, like {@code rollout --disable}),
 * computed on the worker and drawn as the head view draws a map ({@link HeadMatrix}, rows: outputs j,
 * columns: inputs i).
 */
public final class FlowViewModel {
  /** Flow solves n^2 maximum flows over a graph of (L + 1) n nodes: beyond this many tokens, rollout only. */
  public static final int MAX_FLOW_TOKENS = 40;

  /** Which matrix is drawn. */
  public enum Show {
    ROLLOUT("Rollout after layer"),
    FLOW("Flow to the last layer (row-normalised)"),
    FLOW_RAW("Flow to the last layer (raw)");

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

  private final Session session;
  private final ObjectProperty<Show> show = new SimpleObjectProperty<>(Show.ROLLOUT);
  private final IntegerProperty layer = new SimpleIntegerProperty(1);
  private final ReadOnlyObjectWrapper<Result> result = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<HeadMatrix> matrix = new ReadOnlyObjectWrapper<>();
  private final BackgroundJob job;

  public FlowViewModel(Session session) {
    this.session = session;
    this.job = new BackgroundJob(session.worker(), session::fail,
        "Where information ends up across the layers, for the current input: press Compute.");
    session.modelProperty().addListener((o, a, b) -> {
      cancel();
      result.set(null);
    });
    session.ablatedProperty().addListener((o, a, b) -> {
      if (result.get() != null && b != result.get().trace()) {
        job.say("The input or the switched-off heads changed: press Compute for this one.");
      }
    });
    show.addListener((o, a, b) -> update());
    layer.addListener((o, a, b) -> update());
    result.addListener((o, a, b) -> update());
  }

  public ObjectProperty<Show> showProperty() {
    return show;
  }

  /** The layer (1..L) whose rollout is drawn. */
  public IntegerProperty layerProperty() {
    return layer;
  }

  public ReadOnlyObjectProperty<Result> resultProperty() {
    return result.getReadOnlyProperty();
  }

  /** What is drawn: the chosen matrix of the result, or null. */
  public ReadOnlyObjectProperty<HeadMatrix> matrixProperty() {
    return matrix.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty runningProperty() {
    return job.runningProperty();
  }

  public ReadOnlyDoubleProperty progressProperty() {
    return job.progressProperty();
  }

  public ReadOnlyStringProperty statusProperty() {
    return job.statusProperty();
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
    job.start("Rollout" + (withFlow ? " and flow" : "") + " of " + n + " tokens…", -1, false, p -> {
      double[][][] r = Rollout.of(t.attention());
      if (p.isCancelled()) {
        throw new CancellationException();
      }
      return new Result(t, r, withFlow ? AttentionFlow.of(t.attention()) : null);
    }, new BackgroundJob.Outcome<Result>() {
      @Override
      public String done(Result r) {
        if (layer.get() < 1 || layer.get() > r.rollout().length || result.get() == null) {
          layer.set(r.rollout().length);
        }
        result.set(r);
        return "Rollout of " + r.rollout().length + " layers on " + n + " tokens"
            + (r.trace().mask().isEmpty() ? "" : ", as run with " + r.trace().mask().off().size() + " head(s) off")
            + (withFlow ? "; flow into layer " + r.rollout().length + "'s outputs."
                : "; flow skipped: it is computed up to " + MAX_FLOW_TOKENS + " tokens.");
      }

      @Override
      public String failed(Throwable e) {
        return "Rollout failed: " + Session.message(e);
      }

      @Override
      public String cancelled() {
        return "Cancelled; nothing changed.";
      }
    });
  }

  public void cancel() {
    job.cancel();
  }

  /** The values drawn: {@code [j][i]}, output j, input i; null when there is nothing for the choice. */
  public double[][] values() {
    Result r = result.get();
    if (r == null) {
      return null;
    }
    return switch (show.get()) {
      case ROLLOUT -> r.rollout()[Math.max(1, Math.min(layer.get(), r.rollout().length)) - 1];
      case FLOW -> r.flow() == null ? null : r.flow().normalized();
      case FLOW_RAW -> r.flow() == null ? null : r.flow().raw();
    };
  }

  private void update() {
    double[][] v = values();
    if (v == null) {
      matrix.set(null);
      return;
    }
    List<String> tokens = result.get().trace().tokens();
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
    };
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
    AttentionTrace t = result.get().trace();
    String[] typed = session.inputText();
    String input = typed[1].isEmpty() ? typed[0] : typed[0] + " ‖ " + typed[1];
    return MatrixFigure.of(t.model() + " · " + what(),
        List.of("rows: output token j, columns: input token i; Abnar & Zuidema 2020 (METHODS.md)",
            "maps " + t.mapsLabel() + (t.mask().isEmpty() ? "" : ", heads off: " + t.mask().off())),
        input, m.rowTokens(), m.colTokens(), v, false, "share of output j from input i", v.length <= 24 ? 26 : 12,
        v.length <= 24);
  }

  /** Writes the JSON of {@code headscope rollout --flow} (without the flow fields when it was skipped). */
  public static void writeJson(Result r, Path file) {
    if (r == null) {
      throw new HeadScopeException("Press Compute first.");
    }
    SafeFiles.writeAtomically(file, true, out -> RolloutJson.write(r.trace(), r.rollout(), r.flow(), out));
  }
}
