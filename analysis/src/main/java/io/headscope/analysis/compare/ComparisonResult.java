package io.headscope.analysis.compare;

import io.headscope.analysis.corpus.CorpusProblem;
import io.headscope.model.core.Head;
import java.util.Comparator;
import java.util.List;

/**
 * Model A against model B head by head over one corpus.
 *
 * @param perHead layer by layer, head by head (index {@code layer * heads + head})
 * @param perLayer in layer order
 * @param inputs inputs run through both models
 * @param skipped lines or inputs left out (unusable, too long)
 * @param problems the first of them, in line order
 */
public record ComparisonResult(String modelA, String modelB, String source, int layers, int heads,
    List<HeadComparison> perHead, List<LayerComparison> perLayer, int inputs, int skipped,
    List<CorpusProblem> problems) {

  public ComparisonResult {
    perHead = List.copyOf(perHead);
    perLayer = List.copyOf(perLayer);
    problems = List.copyOf(problems);
    if (perHead.size() != layers * heads || perLayer.size() != layers) {
      throw new IllegalArgumentException(perHead.size() + " heads and " + perLayer.size() + " layers for "
          + layers + " x " + heads);
    }
  }

  public HeadComparison head(Head h) {
    return perHead.get(h.layer() * heads + h.head());
  }

  /** Lowest mean cosine first: the layers the second model changed most. */
  public List<LayerComparison> layersByCosine() {
    return perLayer.stream().sorted(Comparator.comparingDouble(LayerComparison::cosine)
        .thenComparingInt(LayerComparison::layer)).toList();
  }

  /** The heads whose majority category differs between A and B, in head order. */
  public List<HeadComparison> changedCategories() {
    return perHead.stream().filter(HeadComparison::categoryChanged).toList();
  }
}
