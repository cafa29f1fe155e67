package io.headscope.model.engine;

import io.headscope.model.core.HeadScopeException;

/**
 * How a sequence classifier is fine-tuned ({@link Trainer}); the defaults are Hugging Face's
 * {@code run_glue} ones ({@link #defaults}).
 *
 * @param epochs passes over the training inputs
 * @param learningRate the peak learning rate of AdamW, reached at the end of the warm-up
 * @param batchSize inputs per optimizer step (the last batch of an epoch may be smaller)
 * @param warmupShare share of all steps over which the learning rate rises linearly from 0
 * @param weightDecay AdamW's decoupled weight decay, for every weight but biases and LayerNorm gains
 * @param dropout dropout rate on the embeddings, attention probabilities, the attention and
 *     feed-forward outputs and the pooled output (BERT's {@code hidden_dropout_prob} and
 *     {@code attention_probs_dropout_prob}); 0 switches it off
 * @param seed seeds the classifier's initialisation, the shuffling and the dropout masks
 */
public record FineTuneOptions(int epochs, double learningRate, int batchSize, double warmupShare,
    double weightDecay, double dropout, long seed) {

  public FineTuneOptions {
    if (epochs < 1 || epochs > 1000) {
      throw new HeadScopeException("--epochs must be between 1 and 1000, got " + epochs + ".");
    }
    if (!(learningRate > 0 && learningRate < 1)) {
      throw new HeadScopeException("--lr must be in (0, 1), got " + learningRate + ".");
    }
    if (batchSize < 1 || batchSize > 4096) {
      throw new HeadScopeException("--batch must be between 1 and 4096, got " + batchSize + ".");
    }
    if (!(warmupShare >= 0 && warmupShare < 1)) {
      throw new HeadScopeException("--warmup must be in [0, 1), got " + warmupShare + ".");
    }
    if (!(weightDecay >= 0 && weightDecay < 1)) {
      throw new HeadScopeException("--weight-decay must be in [0, 1), got " + weightDecay + ".");
    }
    if (!(dropout >= 0 && dropout < 1)) {
      throw new HeadScopeException("the dropout rate must be in [0, 1), got " + dropout + ".");
    }
  }

  /** 3 epochs, learning rate 2e-5, batches of 16, 10% warm-up, weight decay 0.01, dropout 0.1. */
  public static FineTuneOptions defaults(long seed) {
    return new FineTuneOptions(3, 2e-5, 16, 0.1, 0.01, 0.1, seed);
  }

  /** Optimizer steps in one epoch of {@code inputs} training inputs. */
  public int stepsPerEpoch(int inputs) {
    return (inputs + batchSize - 1) / batchSize;
  }

  /**
   * Warm-up steps out of {@code totalSteps}: {@code ceil(warmupShare * total)} as Hugging Face's
   * Trainer computes them, kept below the total so that the decay has at least one step.
   */
  public int warmupSteps(int totalSteps) {
    return (int) Math.min(Math.ceil(warmupShare * totalSteps), Math.max(0, totalSteps - 1));
  }
}
