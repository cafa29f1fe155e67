package io.headscope.analysis.circuits;

/**
 * What an ablated edge carries instead of its sender's clean output (Miller et al. 2024 show circuit metrics
 * depend on this choice).
 */
public enum Ablation {
  /** The sender's output on the corrupted input. */
  CORRUPTED,
  /** The sender's output averaged over a set of corrupted inputs (all of the clean input's length), per position. */
  MEAN;

  /** {@code corrupted}, {@code mean}: the CLI's {@code --ablation} and the CSV's column. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
