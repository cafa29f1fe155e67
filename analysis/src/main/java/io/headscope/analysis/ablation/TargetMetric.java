package io.headscope.analysis.ablation;

import io.headscope.model.core.HeadScopeException;
import java.util.Locale;

/**
 * A chosen contrast to follow as heads go off, instead of the intact model's top token: at each
 * {@code [MASK]}, the target token's log-probability or probability, or its difference from a
 * contrast token ({@code P(her) - P(him)}, or the logit difference {@code z_her - z_him}, which equals
 * {@code log P(her) - log P(him)} because the softmax's normaliser cancels).
 *
 * @param kind what is measured
 * @param target the target token's vocabulary id
 * @param contrast the contrast token's id, or -1 for none
 */
public record TargetMetric(Kind kind, long target, long contrast) {

  public enum Kind {
    LOGPROB,
    PROB,
    LOGIT_DIFF;

    public static Kind parse(String s) {
      return switch (s == null ? "" : s.trim().toLowerCase(Locale.ROOT)) {
        case "logprob" -> LOGPROB;
        case "prob" -> PROB;
        case "logit-diff", "logit_diff" -> LOGIT_DIFF;
        default -> throw new HeadScopeException("Metric \"" + s + "\" is unknown: use logprob, prob or logit-diff.");
      };
    }
  }

  public TargetMetric {
    if (kind == Kind.LOGIT_DIFF && contrast < 0) {
      throw new HeadScopeException("The logit difference needs a contrast token (--contrast).");
    }
    if (contrast == target) {
      throw new HeadScopeException("The contrast token is the target itself.");
    }
  }

  /**
   * What is measured, in the words every place uses for it (the Predictions panel's choice, the sweep's
   * title and figure): {@code log P(her)}, {@code P(her)}, {@code logit her − him} (also the log-probability
   * with a contrast: the same number), {@code P(her) − P(him)}. {@code contrast} null or empty: none.
   */
  /** The words of what is measured while no word is followed, on an input with a [MASK]: its intact top token. */
  public static final String INTACT_TOP_WORDS = "log-prob of the intact top token";
  /** The same on a masked model's input without a [MASK]: a seeded 15% of its tokens, masked, read back. */
  public static final String SAMPLED_WORDS = "log-prob of the original tokens (a 15% sample)";
  /** The same on a causal model: a seeded 15% of the text's own tokens, each predicted from those before it. */
  public static final String NEXT_WORDS = "log-prob of the text's own next tokens (a 15% sample)";

  /** What the sweep measures while no word is followed, in words (every place names it so). */
  public static String defaultWords(boolean causal, boolean masks) {
    return causal ? NEXT_WORDS : masks ? INTACT_TOP_WORDS : SAMPLED_WORDS;
  }

  /** Whether {@code words} name a measure without a followed word ({@link #defaultWords}). */
  public static boolean isDefault(String words) {
    return INTACT_TOP_WORDS.equals(words) || SAMPLED_WORDS.equals(words) || NEXT_WORDS.equals(words);
  }

  /** What a default measure's top-1 share counts: the token each probed position is scored on. */
  public static String defaultToken(String words) {
    return NEXT_WORDS.equals(words) ? "the text's own next token" : SAMPLED_WORDS.equals(words) ? "the original token"
        : "the intact top token";
  }

  public static String words(Kind kind, String target, String contrast) {
    boolean versus = contrast != null && !contrast.isEmpty();
    if (!versus) {
      return kind == Kind.PROB ? "P(" + target + ")" : kind == Kind.LOGPROB ? "log P(" + target + ")"
          : "logit " + target + " − (a contrast)";
    }
    return kind == Kind.PROB ? "P(" + target + ") − P(" + contrast + ")" : "logit " + target + " − " + contrast;
  }

  public boolean hasContrast() {
    return contrast >= 0;
  }

  /**
   * The CSV name of the measured quantity: {@code logprob} or {@code prob} of the target alone;
   * {@code logit_diff} (also logprob with a contrast: the same number) or {@code prob_diff}.
   */
  public String column() {
    if (!hasContrast()) {
      return kind == Kind.PROB ? "prob" : "logprob";
    }
    return kind == Kind.PROB ? "prob_diff" : "logit_diff";
  }

  /** The metric at one position from the target's and the contrast's log-probabilities there. */
  public double value(double logTarget, double logContrast) {
    if (kind == Kind.PROB) {
      return hasContrast() ? Math.exp(logTarget) - Math.exp(logContrast) : Math.exp(logTarget);
    }
    return hasContrast() ? logTarget - logContrast : logTarget;
  }
}
