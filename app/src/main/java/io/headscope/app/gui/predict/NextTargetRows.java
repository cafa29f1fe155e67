package io.headscope.app.gui.predict;

import io.headscope.app.gui.session.TwoStacks;
import io.headscope.model.EncoderDecoderTrace;
import io.headscope.model.MaskPrediction.TokenProbability;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The predictions panel's lines for an encoder-decoder: at each target position, the most probable next target
 * tokens of the intact model and with the switched-off heads, as {@code predict --target} reports them (both
 * runs are {@link io.headscope.model.EncoderDecoderModel#trace}'s, the same call the command makes).
 */
public final class NextTargetRows {
  private NextTargetRows() {}

  /** One line per target position; none before the first run. */
  public static List<PredictionRow> of(TwoStacks t) {
    List<PredictionRow> rows = new ArrayList<>();
    if (t == null || t.intact() == null) {
      return rows;
    }
    EncoderDecoderTrace intact = t.intact();
    EncoderDecoderTrace run = t.asRun();
    boolean off = run != intact && !run.mask().isEmpty();
    List<String> tokens = intact.target().tokens();
    for (int i = 0; i < intact.next().size(); i++) {
      List<TokenProbability> before = intact.next().get(i);
      List<TokenProbability> after = run.next().get(i);
      String title = "next target token after \"" + tokens.get(i).strip() + "\" (" + i + ")";
      if (!off) {
        rows.add(new PredictionRow(title, before, before,
            "all heads on: switch heads off (encoder, decoder or cross) to see what changes", false));
        continue;
      }
      rows.add(new PredictionRow(title, before, after, summary(before, after), true));
    }
    return rows;
  }

  /** The intact top token's probability before and after, and its place among the top tokens after. */
  static String summary(List<TokenProbability> before, List<TokenProbability> after) {
    TokenProbability top = before.get(0);
    for (int r = 0; r < after.size(); r++) {
      if (after.get(r).id() == top.id()) {
        double p = after.get(r).probability();
        return String.format(Locale.ROOT, "\"%s\" %s → %s (%s), now rank %d", top.token(),
            PredictionRow.percent(top.probability()), PredictionRow.percent(p),
            PredictionRow.signedPoints(p - top.probability()), r + 1);
      }
    }
    return String.format(Locale.ROOT, "\"%s\" %s → below the top %d", top.token(),
        PredictionRow.percent(top.probability()), after.size());
  }
}
