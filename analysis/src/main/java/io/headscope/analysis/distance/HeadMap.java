package io.headscope.analysis.distance;

import io.headscope.model.core.Head;

/**
 * Every head as a point in the plane: classical MDS ({@link ClassicalMds}) of the Jensen-Shannon
 * distances {@code sqrt(JS)} (METHODS.md, "Head distances"), so heads that attend alike sit close.
 *
 * @param distances what the map is drawn from
 * @param layout the two axes, one point per head (layer-major)
 */
public record HeadMap(HeadDistances distances, MdsMap layout) {
  public static HeadMap of(HeadDistances d) {
    return new HeadMap(d, ClassicalMds.embed(d.distances(), 2));
  }

  public double x(Head h) {
    return layout.coordinate(distances.index(h), 0);
  }

  public double y(Head h) {
    return layout.coordinate(distances.index(h), 1);
  }

  /** The head closest to {@code h} by the divergence (not by the map, which flattens): null alone. */
  public Head nearest(Head h) {
    Head best = null;
    for (int b = 0; b < distances.count(); b++) {
      Head other = distances.head(b);
      if (!other.equals(h) && (best == null || distances.divergence(h, other) < distances.divergence(h, best))) {
        best = other;
      }
    }
    return best;
  }
}
