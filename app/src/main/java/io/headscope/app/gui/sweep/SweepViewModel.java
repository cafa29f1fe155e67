package io.headscope.app.gui.sweep;

import io.headscope.app.gui.exec.Worker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.Head;
import io.headscope.model.ablation.AblationResult;
import io.headscope.model.ablation.AblationSweep;
import java.util.Locale;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
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

  private final MainViewModel main;
  private final Worker worker;
  private final ReadOnlyObjectWrapper<AblationResult> result = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper();
  private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper();
  private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(
      "Switches each head off alone, then each layer, and measures the masked-LM prediction.");
  private final ObjectProperty<Metric> metric = new SimpleObjectProperty<>(Metric.LOGPROB);
  private final ReadOnlyStringWrapper input = new ReadOnlyStringWrapper("");
  private Worker.Job job;

  public SweepViewModel(MainViewModel main) {
    this.main = main;
    this.worker = main.worker();
    main.modelProperty().addListener((o, a, b) -> {
      cancel();
      result.set(null);
    });
  }

  public ReadOnlyObjectProperty<AblationResult> resultProperty() {
    return result.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty runningProperty() {
    return running.getReadOnlyProperty();
  }

  public ReadOnlyDoubleProperty progressProperty() {
    return progress.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty statusProperty() {
    return status.getReadOnlyProperty();
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
    BertModel m = main.modelProperty().get();
    AttentionTrace t = main.traceProperty().get();
    if (m == null || t == null || running.get()) {
      if (t == null) {
        status.set("Type a sentence first.");
      }
      return;
    }
    if (!m.hasMaskedLmHead()) {
      main.fail(new io.headscope.model.HeadScopeException(
          "The sweep measures masked-LM predictions, and " + m.name() + " has no masked-LM head."));
      return;
    }
    var options = new AblationSweep.Options(main.maskProperty().get().mode(), true, 0);
    String sentence = String.join(" ", t.tokens());
    running.set(true);
    progress.set(0);
    status.set("Sweeping " + t.layers() * t.heads() + " heads…");
    job = worker.submit(p -> new AblationSweep(m).run(java.util.List.of(t.encoding()), options,
        p::update, p::isCancelled), new Worker.Listener<AblationResult>() {
          @Override
          public void progress(String message, double fraction) {
            if (running.get()) {
              progress.set(fraction);
            }
          }

          @Override
          public void done(AblationResult r) {
            running.set(false);
            result.set(r);
            input.set(sentence);
            progress.set(1);
            status.set(String.format(Locale.ROOT,
                "%d position(s) probed; intact log-prob %.3f, accuracy %.0f%%. Red: removing the head hurt; blue: it helped. Click a cell to view the head.",
                r.positions(), r.baselineLogprob(), 100 * r.baselineAccuracy()));
          }

          @Override
          public void failed(Throwable e) {
            running.set(false);
            status.set("Sweep failed.");
            main.fail(e);
          }

          @Override
          public void cancelled() {
            running.set(false);
            progress.set(0);
            status.set("Sweep cancelled; nothing changed.");
          }
        });
  }

  public void cancel() {
    if (job != null && running.get()) {
      job.cancel();
    }
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

  /** Clicking a head's cell selects it in the main view. */
  public void select(int layer, int head) {
    if (head >= 0) {
      main.select(new Head(layer, head));
    }
  }
}
