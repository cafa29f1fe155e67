package io.headscope.analysis.causal;

import java.util.List;

/**
 * Activation patching at one site: the metric on the clean and the corrupted input, and with each cell
 * (layer x head, or layer x position) patched.
 *
 * <p>The recovered share is {@code (patched - corrupted) / (clean - corrupted)} in either direction: in
 * denoising (the corrupted run, one clean value put back) 1 means the cell alone restores the clean
 * behaviour; in noising (the clean run, one corrupted value put in) 1 means the cell changes nothing
 * and {@code 1 - recovered} is the share of the clean-corrupted difference it is necessary for. With the KL
 * metric ({@link PatchMetric}) {@code clean} is 0 and {@code corrupted} is {@code KL(clean || corrupted)}, so
 * the same formula is {@code 1 - KL(clean || patched) / KL(clean || corrupted)}.
 *
 * @param metric the metric's CSV name ({@code logit_diff}, {@code logprob}, ..., {@code kl})
 * @param patched {@code [layer][cell]}, the metric with that cell patched
 * @param attribution {@code [layer][cell]}, attribution patching's first-order estimate of
 *     {@code patched - base} (base: the run that was patched), or null
 */
public record PatchResult(PatchSite site, PatchDirection direction, String metric, double clean, double corrupted,
    List<String> cleanTokens, List<String> corruptedTokens, double[][] patched, double[][] attribution) {

  public PatchResult {
    cleanTokens = List.copyOf(cleanTokens);
    corruptedTokens = List.copyOf(corruptedTokens);
  }

  /**
   * The cell that matters most, {@code {layer, cell}}: in denoising the one that restores most (the largest
   * share), in noising the one whose corruption loses most (the smallest); ties to the first in layer, then
   * cell order.
   */
  public int[] mostTelling() {
    boolean denoise = direction == PatchDirection.DENOISE;
    int bl = 0;
    int bc = 0;
    for (int l = 0; l < layers(); l++) {
      for (int c = 0; c < cells(); c++) {
        if (denoise ? recovered(l, c) > recovered(bl, bc) : recovered(l, c) < recovered(bl, bc)) {
          bl = l;
          bc = c;
        }
      }
    }
    return new int[] {bl, bc};
  }

  public int layers() {
    return patched.length;
  }

  /** Heads per layer, or token positions. */
  public int cells() {
    return patched[0].length;
  }

  /** The metric of the run that was patched: corrupted in denoising, clean in noising. */
  public double base() {
    return direction == PatchDirection.DENOISE ? corrupted : clean;
  }

  public double recovered(int layer, int cell) {
    return share(patched[layer][cell]);
  }

  /** Attribution patching's estimate of {@link #recovered}: the base plus the first-order change, as a share. */
  public double attributedShare(int layer, int cell) {
    return share(base() + attribution[layer][cell]);
  }

  public boolean hasAttribution() {
    return attribution != null;
  }

  public PatchResult withAttribution(double[][] estimate) {
    return new PatchResult(site, direction, metric, clean, corrupted, cleanTokens, corruptedTokens, patched, estimate);
  }

  private double share(double value) {
    return (value - corrupted) / (clean - corrupted);
  }
}
