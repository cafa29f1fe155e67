package io.headscope.app.gui.sweep;

import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.session.Session;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.Head;
import io.headscope.model.ablation.AblationResult;
import io.headscope.model.ablation.AblationSweep;
import java.util.Locale;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The ablation sweep screen: every head (and every layer) switched off alone on the current input,
 * through the ablation service ({@link AblationSweep}) on the worker, with progress and cancel.
 */
public final class SweepViewModel {

  /** Which effect the heatmap shows. */
  public enum Metric {
    LOGPROB("Δ log-prob of the target"), ACCURACY("Δ accuracy"), KL("KL(intact ‖ off)");

    private final String label;

    Metric(String label) {
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  private final Session session;
  private final ReadOnlyObjectWrapper<AblationResult> result = new ReadOnlyObjectWrapper<>();
  private final BackgroundJob job;
  private final ObjectProperty<Metric> metric = new SimpleObjectProperty<>(Metric.LOGPROB);
  private final ReadOnlyStringWrapper input = new ReadOnlyStringWrapper("");

  public SweepViewModel(Session session) {
    this.session = session;
    this.job = new BackgroundJob(session.worker(), session::fail,
        "Switches each head off alone, then each layer, and measures the masked-LM prediction.");
    session.modelProperty().addListener((o, a, b) -> {
      cancel();
      result.set(null);
    });
  }

  public ReadOnlyObjectProperty<AblationResult> resultProperty() {
    return result.getReadOnlyProperty();
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

  /** The sentence the shown result belongs to. */
  public ReadOnlyStringProperty inputProperty() {
    return input.getReadOnlyProperty();
  }

  public ObjectProperty<Metric> metricProperty() {
    return metric;
  }

  /** Runs the sweep on the current input in the current switch-off mode. */
  public void run() {
    BertModel m = session.model();
    AttentionTrace t = session.trace();
    if (m == null || t == null || job.isRunning()) {
      if (t == null) {
        job.say("Type a sentence first.");
      }
      return;
    }
    if (!m.hasMaskedLmHead()) {
      session.fail(new io.headscope.model.HeadScopeException(
          "The sweep measures masked-LM predictions, and " + m.name() + " has no masked-LM head."));
      return;
    }
    var options = new AblationSweep.Options(session.mask().mode(), true, 0);
    String sentence = String.join(" ", t.tokens());
    job.start("Sweeping " + t.layers() * t.heads() + " heads…", 0, false,
        p -> new AblationSweep(m).run(java.util.List.of(t.encoding()), options, p::update, p::isCancelled),
        new BackgroundJob.Outcome<AblationResult>() {
          @Override
          public String done(AblationResult r) {
            result.set(r);
            input.set(sentence);
            return String.format(Locale.ROOT,
                "%d position(s) probed; intact log-prob %.3f, accuracy %.0f%%. Red: removing the head hurt; blue: it helped. Click a cell to view the head.",
                r.positions(), r.baselineLogprob(), 100 * r.baselineAccuracy());
          }

          @Override
          public String failed(Throwable e) {
            return "Sweep failed.";
          }

          @Override
          public String cancelled() {
            return "Sweep cancelled; nothing changed.";
          }
        });
  }

  public void cancel() {
    job.cancel();
  }

  /** The value of a cell under the current metric; {@code head == -1} is the whole layer. */
  public double value(int layer, int head) {
    AblationResult r = result.get();
    if (head < 0) {
      return switch (metric.get()) {
        case LOGPROB -> r.layerDeltaLogprob(layer);
        case ACCURACY -> r.layerDeltaAccuracy(layer);
        case KL -> r.layerKl()[layer];
      };
    }
    return switch (metric.get()) {
      case LOGPROB -> r.deltaLogprob(layer, head);
      case ACCURACY -> r.deltaAccuracy(layer, head);
      case KL -> r.headKl()[layer][head];
    };
  }

  /** For the status line under the pointer. */
  public String describe(int layer, int head) {
    if (result.get() == null) {
      return "";
    }
    String what = head < 0 ? "layer " + (layer + 1) + " (all heads)" : "head " + new Head(layer, head);
    return String.format(Locale.ROOT, "%s off: %s = %+.4f", what, metric.get(), value(layer, head));
  }

  /** The sweep as a figure for a paper ({@link SweepFigures}). */
  public io.headscope.app.render.figure.Figure figure() {
    String mode = session.mask().mode() == io.headscope.model.HeadMask.Mode.ZERO ? "zero: attention × 0"
        : "uniform: even rows";
    return SweepFigures.of(this, session.model() == null ? "" : session.model().name(), mode);
  }

  /** Clicking a head's cell selects it in the main view. */
  public void select(int layer, int head) {
    if (head >= 0) {
      session.select(new Head(layer, head));
    }
  }
}
