package io.headscope.analysis.heads;

import java.util.ArrayList;
import java.util.List;

/**
 * One layer's token-type attention (Clark et al.; Kobayashi et al. for the norm view): the mean over
 * the layer's heads of each head's mean-over-rows share (METHODS.md).
 *
 * @param layer 0-based
 * @param weight shares of the attention weights
 * @param norm shares under norm weighting {@code N_ij = A_ij ||f^h(x_j)||}, each row divided by its sum
 */
public record LayerTokenTypes(int layer, TokenTypeShares weight, TokenTypeShares norm) {

  /** Per layer, from per-head statistics in layer-major order ({@code heads} per layer). */
  public static List<LayerTokenTypes> of(List<HeadStats> stats, int heads) {
    List<LayerTokenTypes> out = new ArrayList<>();
    for (int l = 0; l * heads < stats.size(); l++) {
      double[] w = new double[4];
      double[] n = new double[4];
      for (int h = 0; h < heads; h++) {
        HeadStats s = stats.get(l * heads + h);
        double[] sw = s.weightShares();
        double[] sn = s.normShares();
        for (int t = 0; t < 4; t++) {
          w[t] += sw[t] / heads;
          n[t] += sn[t] / heads;
        }
      }
      out.add(new LayerTokenTypes(l, TokenTypeShares.of(w), TokenTypeShares.of(n)));
    }
    return out;
  }

  /** For one input: every head of the trace classified, then averaged per layer. */
  public static List<LayerTokenTypes> of(List<HeadScore> scores) {
    int heads = (int) scores.stream().filter(s -> s.head().layer() == 0).count();
    return of(scores.stream().map(HeadScore::stats).toList(), heads);
  }
}
