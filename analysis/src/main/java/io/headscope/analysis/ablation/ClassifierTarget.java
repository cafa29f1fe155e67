package io.headscope.analysis.ablation;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.engine.ClassifierGradients;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/** A pruning curve of a sequence classifier's accuracy on labelled inputs. */
public final class ClassifierTarget implements PruneTarget {
  private final BertModel model;
  private final List<Encoding> inputs;
  private final int[] gold;
  private final HeadMask.Mode mode;
  private final int batch;

  public ClassifierTarget(BertModel model, List<Encoding> inputs, int[] gold, HeadMask.Mode mode, int batch) {
    new TaskSweep(model); // refuses a model without a classifier head
    if (inputs.isEmpty() || gold.length != inputs.size()) {
      throw new IllegalArgumentException(gold.length + " gold labels for " + inputs.size() + " inputs");
    }
    this.model = model;
    this.inputs = List.copyOf(inputs);
    this.gold = gold.clone();
    this.mode = mode;
    this.batch = batch;
  }

  @Override
  public String metric() {
    return "accuracy";
  }

  @Override
  public double measure(Set<Head> off, BooleanSupplier cancelled) {
    Intervention masks = Intervention.heads(HeadMask.of(off, mode), model.config());
    int correct = 0;
    for (int start = 0; start < inputs.size(); start += batch) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("pruning cancelled");
      }
      List<Encoding> group = inputs.subList(start, Math.min(inputs.size(), start + batch));
      float[][] p = model.run(RunRequest.of(group).intervene(masks).read(Readouts.none().withClassifier()))
          .classProbabilities();
      for (int i = 0; i < p.length; i++) {
        correct += TaskSweep.argMax(p[i]) == gold[start + i] ? 1 : 0;
      }
    }
    return correct / (double) inputs.size();
  }

  /** {@link HeadImportance} with the classifier's cross-entropy of the gold class as the loss. */
  @Override
  public double[][] importance(Set<Head> off, ProgressListener progress, BooleanSupplier cancelled) {
    return HeadImportance.mean(gradients(off, progress, cancelled)).importance();
  }

  /**
   * Each input's gradient of its gold-class cross-entropy, with {@code off} switched off, in input order;
   * {@code batch} inputs per backward pass.
   */
  public List<HeadImportance.Gradient> gradients(Set<Head> off, ProgressListener progress,
      BooleanSupplier cancelled) {
    Intervention masks = Intervention.heads(HeadMask.of(off, mode), model.config());
    List<Intervention> with = masks == null ? List.of() : List.of(masks);
    List<HeadImportance.Gradient> out = new ArrayList<>();
    for (int start = 0; start < inputs.size(); start += batch) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("head importance cancelled");
      }
      int end = Math.min(inputs.size(), start + batch);
      ClassifierGradients.Result g = model.classifierGradients(new ClassifierGradients(inputs.subList(start, end),
          Arrays.copyOfRange(gold, start, end), with));
      for (int i = 0; i < end - start; i++) {
        out.add(new HeadImportance.Gradient(g.headMask()[i], g.losses()[i]));
      }
      progress.progress("Inputs " + (start + 1) + "-" + end + " of " + inputs.size(), end / (double) inputs.size());
    }
    return out;
  }

  @Override
  public double[][] sweepDelta(ProgressListener progress, BooleanSupplier cancelled) {
    return new TaskSweep(model).run(inputs, gold, new TaskSweep.Options(mode, false, batch), progress, cancelled)
        .delta(TaskScores::loglik);
  }
}
