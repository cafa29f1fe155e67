package io.headscope.app.render;

/**
 * Places a scatter of points (an MDS map) in a box with one scale for both axes, so that distances
 * on screen stay proportional to distances in the map; y points up, as in a plot. The window's map
 * and its figure use the same fit, so the figure shows what the screen shows.
 */
public record ScatterFit(double centreX, double centreY, double scale, double boxX, double boxY, double boxW,
    double boxH) {

  /**
   * @param xs, ys the points
   * @param pad room kept free at the box's edges (for the markers)
   */
  public static ScatterFit of(double[] xs, double[] ys, double boxX, double boxY, double boxW, double boxH,
      double pad) {
    double minX = Double.POSITIVE_INFINITY;
    double maxX = Double.NEGATIVE_INFINITY;
    double minY = Double.POSITIVE_INFINITY;
    double maxY = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < xs.length; i++) {
      minX = Math.min(minX, xs[i]);
      maxX = Math.max(maxX, xs[i]);
      minY = Math.min(minY, ys[i]);
      maxY = Math.max(maxY, ys[i]);
    }
    double spanX = xs.length == 0 ? 0 : maxX - minX;
    double spanY = ys.length == 0 ? 0 : maxY - minY;
    double room = Math.min((boxW - 2 * pad) / Math.max(spanX, 1e-12), (boxH - 2 * pad) / Math.max(spanY, 1e-12));
    double scale = spanX == 0 && spanY == 0 ? 1 : Math.max(0, room);
    return new ScatterFit(xs.length == 0 ? 0 : (minX + maxX) / 2, ys.length == 0 ? 0 : (minY + maxY) / 2, scale,
        boxX, boxY, boxW, boxH);
  }

  public double px(double x) {
    return boxX + boxW / 2 + (x - centreX) * scale;
  }

  public double py(double y) {
    return boxY + boxH / 2 - (y - centreY) * scale;
  }
}
