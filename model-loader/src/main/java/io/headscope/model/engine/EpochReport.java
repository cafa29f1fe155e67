package io.headscope.model.engine;

/**
 * What one epoch of fine-tuning did.
 *
 * @param epoch 1-based
 * @param epochs how many were asked for
 * @param steps optimizer steps in the epoch
 * @param meanLoss mean cross-entropy of the gold label over the epoch's inputs, as trained (dropout on,
 *     weights moving)
 * @param trainAccuracy share of the epoch's inputs the model got right as it trained on them (same
 *     conditions as the loss)
 * @param devAccuracy accuracy on the dev inputs after the epoch (NaN when none)
 * @param devMacroF1 mean over the labels of each label's F1 on the dev inputs (NaN when none)
 * @param seconds wall time of the epoch's training (not the dev evaluation)
 * @param time where the training time went
 */
public record EpochReport(int epoch, int epochs, int steps, double meanLoss, double trainAccuracy,
    double devAccuracy, double devMacroF1, double seconds, StepTimes time) {

  /**
   * Wall seconds of an epoch's steps by phase (torch runs each operation to completion on the CPU,
   * so the clock between calls measures the operation).
   *
   * @param forward batching, the forward pass and the loss
   * @param backward the backward pass
   * @param optimizer the AdamW updates and clearing the gradients
   */
  public record StepTimes(double forward, double backward, double optimizer) {}

  public EpochReport withDev(double accuracy, double macroF1) {
    return new EpochReport(epoch, epochs, steps, meanLoss, trainAccuracy, accuracy, macroF1, seconds, time);
  }

  public boolean hasDev() {
    return !Double.isNaN(devAccuracy);
  }
}
