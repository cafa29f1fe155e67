package io.headscope.analysis.saliency;

/**
 * The number whose attribution to the tokens is asked for, read at the model's read positions (every
 * [MASK], or a causal model's last token), averaged over them when there are several.
 *
 * @param kind log-probability of the target, or the logit difference target minus contrast
 * @param target the followed token id
 * @param contrast the contrast token id ({@link Kind#LOGIT_DIFF}), else -1
 */
public record SaliencyMetric(Kind kind, long target, long contrast) {
  public enum Kind {
    /** {@code log p(target)}. */
    LOGPROB("logprob"),
    /**
     * {@code z_target - z_contrast}, computed as {@code log p(target) - log p(contrast)}: the softmax's
     * normaliser is the same for both and cancels.
     */
    LOGIT_DIFF("logit-diff");

    public final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  public SaliencyMetric {
    if (target < 0) {
      throw new IllegalArgumentException("no target");
    }
    if ((kind == Kind.LOGIT_DIFF) != (contrast >= 0)) {
      throw new IllegalArgumentException("a logit difference needs a contrast, a log-probability none");
    }
    if (contrast == target) {
      // z_t - z_t is 0 for every input: every saliency would be 0 and completeness 0/0
      throw new io.headscope.model.core.HeadScopeException("The contrast token is the target itself.");
    }
  }

  public static SaliencyMetric of(long target, long contrast) {
    return contrast < 0 ? new SaliencyMetric(Kind.LOGPROB, target, -1)
        : new SaliencyMetric(Kind.LOGIT_DIFF, target, contrast);
  }

  /** The metric of log-probabilities {@code [position][vocab]}. */
  double of(float[][] logProbs) {
    double sum = 0;
    for (float[] lp : logProbs) {
      sum += lp[(int) target] - (kind == Kind.LOGIT_DIFF ? lp[(int) contrast] : 0);
    }
    return sum / logProbs.length;
  }
}
