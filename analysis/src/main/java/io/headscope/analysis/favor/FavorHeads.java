package io.headscope.analysis.favor;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.engine.RunRequest;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Heads to run on FAVOR+ instead of softmax in a forward pass, and how: m features of a kind, the seed
 * family and the draw (the app shows draw 0, the one its FAVOR+ maps show). Applied to a request, it
 * is an intervention on those heads' attention patterns ({@link FavorAnalysis#headsOnFavor}), as
 * switching heads off is an intervention on their outputs.
 *
 * @param heads the heads on FAVOR+ (0-based); empty for none
 * @param features m
 * @param kind orthogonal (ORF) or iid directions
 * @param seed the seed family of the directions
 * @param draw which draw of that family
 */
public record FavorHeads(Set<Head> heads, int features, RandomFeatures.Kind kind, long seed, int draw) {
  public static final FavorHeads NONE = new FavorHeads(Set.of(), 64, RandomFeatures.Kind.ORF, 0, 0);

  public FavorHeads {
    heads = Set.copyOf(new TreeSet<>(heads));
    if (features < 1) {
      throw new IllegalArgumentException("m must be positive, got " + features);
    }
  }

  public boolean isEmpty() {
    return heads.isEmpty();
  }

  /** The request with these heads on FAVOR+ (unchanged when there are none). One input. */
  public RunRequest applyTo(BertModel model, RunRequest request) {
    return isEmpty() ? request : FavorAnalysis.headsOnFavor(model, request, heads, seed, features, kind, draw);
  }

  /** For a status line: "3 heads on FAVOR+ (m = 64, ORF, draw 1)". */
  public String describe() {
    return String.format(Locale.ROOT, "%d %s on FAVOR+ (m = %d, %s, draw %d)", heads.size(),
        heads.size() == 1 ? "head" : "heads", features, kind.title(), draw + 1);
  }
}
