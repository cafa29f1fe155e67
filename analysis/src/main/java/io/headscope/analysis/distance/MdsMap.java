package io.headscope.analysis.distance;

/**
 * Points placed by classical multidimensional scaling.
 *
 * @param points {@code [item][axis]}, centred on the origin
 * @param eigenvalues the eigenvalues behind the axes, largest first (each axis's variance times the
 *     number of items)
 * @param explained the share of the positive eigenvalues' sum that the axes carry: 1 when the
 *     distances are exactly those of points in this many dimensions
 */
public record MdsMap(double[][] points, double[] eigenvalues, double explained) {
  public MdsMap {
    points = copy(points);
    eigenvalues = eigenvalues.clone();
  }

  @Override
  public double[][] points() {
    return copy(points);
  }

  @Override
  public double[] eigenvalues() {
    return eigenvalues.clone();
  }

  public int size() {
    return points.length;
  }

  /** One item's coordinate on one axis. */
  public double coordinate(int item, int axis) {
    return points[item][axis];
  }

  private static double[][] copy(double[][] m) {
    double[][] c = new double[m.length][];
    for (int i = 0; i < m.length; i++) {
      c[i] = m[i].clone();
    }
    return c;
  }
}
