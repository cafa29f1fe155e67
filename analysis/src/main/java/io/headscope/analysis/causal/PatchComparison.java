package io.headscope.analysis.causal;

import io.headscope.analysis.ablation.RankCorrelation;
import io.headscope.model.core.Head;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How well attribution patching ranks the cells as exact patching does: Spearman's rank correlation of
 * the two recovered shares over every cell, and the cells whose shares differ most.
 *
 * @param spearman over all layers x cells
 * @param disagreements the cells by decreasing difference of the two shares (at most the few asked for)
 */
public record PatchComparison(double spearman, List<Disagreement> disagreements) {

  /** A cell (0-based layer and cell) with its two shares and the ranks (1 = recovers most) they give it. */
  public record Disagreement(int layer, int cell, double recovered, double attributed, int exactRank,
      int attributedRank) {
    /** As the CLI names heads: 1-based {@code L-H}. */
    public Head head() {
      return new Head(layer, cell);
    }
  }

  public static PatchComparison of(PatchResult r, int top) {
    int n = r.layers() * r.cells();
    double[] exact = new double[n];
    double[] approx = new double[n];
    for (int l = 0; l < r.layers(); l++) {
      for (int c = 0; c < r.cells(); c++) {
        exact[l * r.cells() + c] = r.recovered(l, c);
        approx[l * r.cells() + c] = r.attributedShare(l, c);
      }
    }
    double[] re = RankCorrelation.ranks(negate(exact));
    double[] ra = RankCorrelation.ranks(negate(approx));
    List<Disagreement> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(new Disagreement(i / r.cells(), i % r.cells(), exact[i], approx[i], (int) Math.round(re[i]),
          (int) Math.round(ra[i])));
    }
    // by the shares' difference, not the ranks': among the many heads near zero ranks swap on noise
    all.sort(Comparator.comparingDouble((Disagreement d) -> -Math.abs(d.recovered() - d.attributed()))
        .thenComparingInt(d -> d.exactRank()));
    return new PatchComparison(RankCorrelation.spearman(exact, approx), List.copyOf(all.subList(0, Math.min(top, n))));
  }

  private static double[] negate(double[] v) {
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = -v[i];
    }
    return out;
  }
}
