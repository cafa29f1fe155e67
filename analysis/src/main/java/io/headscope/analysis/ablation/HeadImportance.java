package io.headscope.analysis.ablation;

import io.headscope.model.BertModel;
import io.headscope.model.engine.GradientRequest;
import io.headscope.model.engine.GradientResult;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Gradient head importance (Michel et al. 2019, "Are sixteen heads really better than one?").
 *
 * <p>A mask variable {@code m} (L, H), all ones, multiplies every head's attention probabilities
 * (zero-mode semantics, as Michel's {@code head_mask}); one backward pass of the masked-LM loss at
 * the {@link MlmProbe} positions gives {@code dLoss/dm_h} for every head at once
 * ({@link BertModel#gradient}). The loss is the cross-entropy against the same targets the sweep
 * uses, so {@code -dLoss/dm_h} is the first-order estimate of the sweep's log-probability change.
 */
public final class HeadImportance {
  private final BertModel model;

  public HeadImportance(BertModel model) {
    this.model = model;
  }

  public ImportanceResult run(Encoding input, long seed) {
    return run(List.of(input), seed, ProgressListener.NONE, () -> false);
  }

  /** {@code E_x |dLoss/dm|} over the inputs, with progress after each and cancellation between them. */
  public ImportanceResult run(List<Encoding> inputs, long seed, ProgressListener progress, BooleanSupplier cancelled) {
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("no inputs");
    }
    return mean(gradients(inputs, seed, progress, cancelled));
  }

  /**
   * Each input's gradient, in input order: what a shard of a corpus keeps, so that the shards' gradients
   * put back in corpus order give {@link #mean} exactly what one run gives.
   */
  public List<Gradient> gradients(List<Encoding> inputs, long seed, ProgressListener progress,
      BooleanSupplier cancelled) {
    List<Gradient> out = new java.util.ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("head importance cancelled");
      }
      out.add(gradient(MlmProbe.of(model, inputs.get(i), seed)));
      progress.progress("Input " + (i + 1) + " of " + inputs.size(), (i + 1) / (double) inputs.size());
    }
    return out;
  }

  /** {@code E_x |dLoss/dm|} and the mean loss, summed in the order given (the order fixes the last bits). */
  public static ImportanceResult mean(List<Gradient> gradients) {
    if (gradients.isEmpty()) {
      throw new IllegalArgumentException("no inputs");
    }
    int n = gradients.size();
    int layers = gradients.get(0).dLossDm().length;
    int heads = gradients.get(0).dLossDm()[0].length;
    double[][] sum = new double[layers][heads];
    double loss = 0;
    for (Gradient g : gradients) {
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          sum[l][h] += Math.abs(g.dLossDm()[l][h]) / n;
        }
      }
      loss += g.loss() / n;
    }
    return new ImportanceResult(n, sum, ImportanceResult.normalizePerLayer(sum), loss);
  }

  /** The signed gradient of one input's loss with respect to every head's mask, and the loss. */
  public record Gradient(double[][] dLossDm, double loss) {}

  public Gradient gradient(MlmProbe probe) {
    // at m = 1 the pass is the intact model, so its own top tokens are the [MASK] targets
    long[] targets = probe.kind() == MlmProbe.Kind.MASKS ? null : probe.originals();
    GradientResult g = model.gradient(GradientRequest.headMask(probe.input(), probe.positions(), targets));
    return new Gradient(g.headMask(), g.loss());
  }
}
