package io.headscope.analysis.causal;

import java.util.List;

/**
 * Path patching from every sender head in the layers before the first receiver into the receivers.
 *
 * @param metric the metric's CSV name ({@code logit_diff}, ...)
 * @param patched {@code [layer][head]} of the senders, 0-based: the metric after step (b)
 */
public record PathPatchResult(PatchDirection direction, String metric, double clean, double corrupted,
    List<PathReceiver> receivers, double[][] patched) {

  public PathPatchResult {
    receivers = List.copyOf(receivers);
  }

  /** The layers that hold senders: those before the first receiver's (every layer for the logits). */
  public int senderLayers() {
    return patched.length;
  }

  public int heads() {
    return patched[0].length;
  }

  /** {@code (patched - corrupted) / (clean - corrupted)}, as {@link PatchResult#recovered}. */
  public double recovered(int layer, int head) {
    return (patched[layer][head] - corrupted) / (clean - corrupted);
  }

  /** The metric of the run that is patched: the corrupted one's when denoising, the clean one's when noising. */
  public double base() {
    return direction == PatchDirection.DENOISE ? corrupted : clean;
  }
}
