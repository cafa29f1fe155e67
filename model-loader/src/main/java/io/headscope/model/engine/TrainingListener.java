package io.headscope.model.engine;

/** Progress of fine-tuning, called on the training thread after every optimizer step. */
@FunctionalInterface
public interface TrainingListener {
  /**
   * @param epoch 1-based
   * @param step steps done in this epoch (1-based)
   * @param steps steps in the epoch
   * @param meanLoss mean training loss of the epoch so far
   */
  void step(int epoch, int step, int steps, double meanLoss);
}
