package io.headscope.analysis.saliency;

import io.headscope.analysis.lens.ReadPositions;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.GradientRequest;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import java.util.List;

/**
 * The metric as a function of the input embeddings ({@code hook_embed}, (1, T, d): after the embeddings'
 * LayerNorm in BERT-like models, {@code wte + wpe} in GPT-2), the rest of the input (padding, causal mask)
 * fixed: its value by a forward pass with the embeddings patched in, its gradient by one backward pass
 * per token read (the engine's masked-LM loss is {@code -mean log p(token)}, so the metric's gradient is
 * minus it, and a logit difference is the difference of two).
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
    float[] g = minusLossGradient(e, metric.target());
    if (metric.kind() == SaliencyMetric.Kind.LOGIT_DIFF) {
      float[] c = minusLossGradient(e, metric.contrast());
      for (int i = 0; i < g.length; i++) {
        g[i] -= c[i];
      }
    }
    return g;
  }

  /** The gradient of {@code mean_i log p(token | position_i)}. */
  private float[] minusLossGradient(Activation e, long token) {
    long[] targets = new long[positions.length];
    java.util.Arrays.fill(targets, token);
    float[] d = model.gradient(new GradientRequest(input, List.of(new Intervention.Patch(HookPoint.embed(), e)),
        positions, targets, HookPoint.embed())).point().data().clone();
    for (int i = 0; i < d.length; i++) {
      d[i] = -d[i];
    }
    return d;
  }
}
