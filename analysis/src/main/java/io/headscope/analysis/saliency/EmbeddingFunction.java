package io.headscope.analysis.saliency;

import io.headscope.analysis.lens.ReadPositions;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.EmbeddingGradients;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;

/**
 * The metric as a function of the input embeddings ({@code hook_embed}, (1, T, d): after the embeddings'
 * LayerNorm in BERT-like models, {@code wte + wpe} in GPT-2), the rest of the input (padding, causal mask)
 * fixed: its value by a forward pass with the embeddings patched in, its gradient by the engine's batched
 * backward pass at the embeddings ({@link EmbeddingGradients}), many points of a path in one pass.
 */
final class EmbeddingFunction {
  private final BertModel model;
  private final io.headscope.model.tokenizer.Encoding input;
  private final SaliencyMetric metric;
  private final int[] positions;

  EmbeddingFunction(BertModel model, io.headscope.model.tokenizer.Encoding input, SaliencyMetric metric) {
    this.model = model;
    this.input = input;
    this.metric = metric;
    this.positions = ReadPositions.of(model, input);
  }

  int[] positions() {
    return positions.clone();
  }

  /** The metric with the embeddings replaced by {@code e}. */
  double value(Activation e) {
    float[][] lp = model.run(RunRequest.of(input).intervene(new Intervention.Patch(HookPoint.embed(), e))
        .read(Readouts.none().withLogProbs(positions))).logProbs()[0];
    return metric.of(lp);
  }

  /** {@code d metric / d e} at {@code e}, shaped as {@code e}. */
  float[] gradient(Activation e) {
    return gradients(e).data();
  }

  /**
   * The gradient at every row of {@code rows} (N, T, d), in one batched backward pass of the metric itself
   * (a logit difference in one pass, not two).
   */
  Activation gradients(Activation rows) {
    return model.embeddingGradients(new EmbeddingGradients(input, rows, positions, metric.target(),
        metric.contrast())).gradient();
  }
}
