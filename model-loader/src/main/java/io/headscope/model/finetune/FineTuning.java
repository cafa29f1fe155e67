package io.headscope.model.finetune;

import io.headscope.model.core.BertConfig;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.engine.EpochReport;
import io.headscope.model.engine.FineTuneOptions;
import io.headscope.model.engine.Trainer;
import io.headscope.model.engine.TrainingExample;
import io.headscope.model.engine.TrainingListener;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Fine-tunes a model folder into a sequence classifier and writes it as a model folder after every
 * finished epoch ({@link ClassifierFolder}), so a stopped run keeps the last finished epoch.
 */
public final class FineTuning {
  private FineTuning() {}

  /** Progress: every step, and every finished (and written) epoch. */
  public interface Listener extends TrainingListener {
    void epochDone(EpochReport report);
  }

  /**
   * What a run did.
   *
   * @param epochs the finished epochs, in order (each one written to the folder when it finished)
   * @param cancelled whether the run was stopped before its last epoch finished
   */
  public record Result(List<EpochReport> epochs, boolean cancelled) {
    public Result {
      epochs = List.copyOf(epochs);
    }
  }

  /**
   * Trains and writes {@code out} after each epoch; the caller has checked {@code out}
   * ({@link ClassifierFolder#check}). Without {@code force} the first write claims the folder: one that
   * appeared meanwhile stops the run with nothing written.
   *
   * @param config the source's config (its GELU possibly overridden)
   * @param dev evaluation inputs after each epoch (empty for none)
   */
  public static Result run(ModelFiles source, BertConfig config, List<String> labels, List<TrainingExample> train,
      List<TrainingExample> dev, FineTuneOptions options, Path out, boolean force, Listener listener,
      BooleanSupplier cancelled) {
    List<EpochReport> done = new ArrayList<>();
    ClassifierFolder.Writer folder = ClassifierFolder.writer(out, force);
    try (Safetensors st = Safetensors.open(source.weights());
        Trainer trainer = Trainer.start(config, st, labels, options, train.size())) {
      st.close(); // the weights are in native memory now: the mapped file is not needed
      for (int e = 1; e <= options.epochs(); e++) {
        EpochReport r;
        try {
          r = trainer.epoch(e, train, listener, cancelled);
        } catch (CancellationException stopped) {
          return new Result(done, true);
        }
        if (!dev.isEmpty()) {
          ClassificationScores s = evaluate(trainer, dev, labels.size());
          r = r.withDev(s.accuracy(), s.macroF1());
        }
        folder.write(trainer, source);
        done.add(r);
        listener.epochDone(r);
      }
    }
    return new Result(done, false);
  }

  /** Accuracy and macro-F1 of the trainer's current model on labelled inputs. */
  public static ClassificationScores evaluate(Trainer trainer, List<TrainingExample> inputs, int labels) {
    List<Encoding> encodings = inputs.stream().map(TrainingExample::input).toList();
    int[] gold = inputs.stream().mapToInt(TrainingExample::label).toArray();
    return ClassificationScores.of(gold, ClassificationScores.argMax(trainer.logits(encodings)), labels);
  }
}
