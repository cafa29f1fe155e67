package io.headscope.model.ablation;

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
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    double[][] sum = new double[layers][heads];
    double loss = 0;
    for (int i = 0; i < inputs.size(); i++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("head importance cancelled");
      }
      Gradient g = gradient(MlmProbe.of(model, inputs.get(i), seed));
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          sum[l][h] += Math.abs(g.dLossDm()[l][h]) / inputs.size();
        }
      }
      loss += g.loss() / inputs.size();
      progress.progress("Input " + (i + 1) + " of " + inputs.size(), (i + 1) / (double) inputs.size());
    }
    return new ImportanceResult(inputs.size(), sum, ImportanceResult.normalizePerLayer(sum), loss);
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
