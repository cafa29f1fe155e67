package io.headscope.analysis.predict;

import io.headscope.model.AttentionTrace;
import io.headscope.model.MaskPrediction;
import io.headscope.model.MaskPrediction.TokenProbability;
import java.util.ArrayList;
import java.util.List;

/**
 * What switching heads off did to the prediction at one {@code [MASK]}.
 *
 * @param position the {@code [MASK]} token's index
 * @param before top tokens of the intact model
 * @param after top tokens with the heads switched off
 * @param originalTop the intact model's most probable token
 * @param originalProbabilityBefore its probability in the intact model
 * @param originalProbabilityAfter its probability with the heads off
 * @param originalRankAfter its 1-based rank with the heads off (1 = still on top)
 * @param klDivergence {@code KL(before || after)} in nats over the whole vocabulary
 */
public record PredictionChange(
    int position,
    List<TokenProbability> before,
    List<TokenProbability> after,
    TokenProbability originalTop,
    double originalProbabilityBefore,
    double originalProbabilityAfter,
    int originalRankAfter,
    double klDivergence) {

  public PredictionChange {
    before = List.copyOf(before);
    after = List.copyOf(after);
  }

  public double probabilityChange() {
    return originalProbabilityAfter - originalProbabilityBefore;
  }

  /** Pairs the {@code [MASK]} predictions of an intact and an ablated pass over the same input. */
  public static List<PredictionChange> compare(AttentionTrace intact, AttentionTrace ablated) {
    List<PredictionChange> out = new ArrayList<>();
    for (int i = 0; i < intact.predictions().size(); i++) {
      MaskPrediction b = intact.predictions().get(i);
      MaskPrediction a = ablated.predictions().get(i);
      TokenProbability top = b.top().get(0);
      out.add(new PredictionChange(b.position(), b.top(), a.top(), top, top.probability(),
          a.probabilities()[(int) top.id()], a.rankOf(top.id()), kl(b.probabilities(), a.probabilities())));
    }
    return out;
  }

  /** {@code sum_v p(v) log(p(v) / q(v))}, with q floored at the smallest float to stay finite. */
  public static double kl(float[] p, float[] q) {
    double sum = 0;
    for (int v = 0; v < p.length; v++) {
      if (p[v] > 0) {
        sum += p[v] * (Math.log(p[v]) - Math.log(Math.max(q[v], Float.MIN_VALUE)));
      }
    }
    return Math.max(0, sum);
  }
}
