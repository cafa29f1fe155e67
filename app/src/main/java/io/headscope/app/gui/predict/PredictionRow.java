package io.headscope.app.gui.predict;

import io.headscope.analysis.predict.PredictionChange;
import io.headscope.model.AttentionTrace;
import io.headscope.model.MaskPrediction;
import io.headscope.model.MaskPrediction.TokenProbability;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One {@code [MASK]}'s line in the predictions panel: the top tokens before and after switching heads
 * off, and a one-line summary of the change (from the analysis' {@link PredictionChange}).
 *
 * @param title e.g. {@code [MASK] at 5}
 * @param before the intact model's top tokens
 * @param after the top tokens with the heads off (equal to {@code before} when nothing is off)
 * @param summary the intact top token's probability before → after, its rank, the KL divergence
 */
public record PredictionRow(String title, List<TokenProbability> before, List<TokenProbability> after,
    String summary, boolean changed) {

  /**
   * What a prediction is of: the mask token at its position ({@code [MASK] at 5}, {@code <mask> at 3}), or
   * for a causal model, which predicts at its last token, the token after it.
   */
  static String title(AttentionTrace t, int position) {
    String token = t.tokens().get(position).strip();
    boolean special = token.length() > 2 && (token.startsWith("[") && token.endsWith("]")
        || token.startsWith("<") && token.endsWith(">"));
    return special ? token + " at " + position : "next token after \"" + token + "\" (" + position + ")";
  }

  /** The rows for a pair of passes over the same input; {@code ablated} may equal {@code intact}. */
  public static List<PredictionRow> of(AttentionTrace intact, AttentionTrace ablated) {
    List<PredictionRow> rows = new ArrayList<>();
    if (ablated == intact) { // nothing switched: the main view model hands the intact trace twice
      for (MaskPrediction p : intact.predictions()) {
        rows.add(new PredictionRow(title(intact, p.position()), p.top(), p.top(),
            "all heads on: switch heads off (or put them on FAVOR+) to see what changes", false));
      }
      return rows;
    }
    for (PredictionChange c : PredictionChange.compare(intact, ablated)) {
      String summary = String.format(Locale.ROOT, "\"%s\" %s → %s (%s), now rank %d; KL %.4f",
          c.originalTop().token(), percent(c.originalProbabilityBefore()), percent(c.originalProbabilityAfter()),
          signedPoints(c.probabilityChange()), c.originalRankAfter(), c.klDivergence());
      rows.add(new PredictionRow(title(intact, c.position()), c.before(), c.after(), summary, true));
    }
    return rows;
  }

  public static String percent(double p) {
    return String.format(Locale.ROOT, "%.1f%%", 100 * p);
  }

  public static String signedPoints(double d) {
    return String.format(Locale.ROOT, "%+.1f pts", 100 * d);
  }
}
