package io.headscope.model.ablation;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import io.headscope.model.BertModel;
import io.headscope.model.engine.BertEncoder;
import io.headscope.model.engine.Hooks;
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
 * the {@link MlmProbe} positions gives {@code dLoss/dm_h} for every head at once. The loss is the
 * cross-entropy against the same targets the sweep uses, so {@code -dLoss/dm_h} is the first-order
 * estimate of the sweep's log-probability change. Only {@code m} requires a gradient: the weights
 * never do, so no gradient buffers are made for them.
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
    BertEncoder enc = model.engine();
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    try (NDManager scope = model.manager().newSubManager();
        GradientCollector collector = scope.getEngine().newGradientCollector()) {
      NDArray m = scope.ones(new Shape(layers, heads));
      m.setRequiresGradient(true);
      Hooks hooks = Hooks.none();
      for (int l = 0; l < layers; l++) {
        NDArray row = m.get(l).reshape(1, heads, 1, 1); // (1, H, 1, 1)
        hooks.intervene(Hooks.pattern(l), a -> a.mul(row));
      }
      BertModel.Batch batch = BertModel.Batch.of(scope, List.of(probe.input()));
      NDArray x = enc.embed(batch.ids(), batch.segments(), hooks);
      x = enc.encode(x, enc.scoreMask(batch.real()), 0, hooks); // (1, T, d)
      NDArray logq = MlmScores.logProbs(enc, x, probe.positions()); // (M, V)
      // at m = 1 this pass is the intact model, so its own top tokens are the [MASK] targets
      long[] targets = probe.kind() == MlmProbe.Kind.MASKS ? logq.argMax(-1).toLongArray() : probe.originals();
      NDArray loss = MlmScores.targetLogProbs(logq, targets).mean().neg();
      collector.backward(loss);
      float[] flat;
      try (NDArray grad = m.getGradient()) {
        flat = grad.toFloatArray();
      }
      double[][] out = new double[layers][heads];
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          out[l][h] = flat[l * heads + h];
        }
      }
      return new Gradient(out, loss.getFloat());
    }
  }
}
