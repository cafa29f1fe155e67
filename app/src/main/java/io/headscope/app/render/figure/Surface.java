package io.headscope.app.render.figure;

/**
 * Where a figure draws: the same calls make a PNG (Java2D) or an SVG (XML), so a figure is written
 * once. Coordinates are in the figure's own units (pixels at 96 dpi); colours are 0xRRGGBB, with an
 * opacity where it matters.
 */
public interface Surface {
  enum Anchor { START, MIDDLE, END }

  void fill(double x, double y, double w, double h, int rgb);

  void stroke(double x, double y, double w, double h, int rgb, double width);

  void line(double x1, double y1, double x2, double y2, int rgb, double opacity, double width);

  /** A line dashed {@code dash} on, {@code dash} off (a circuit edge that works against the behaviour). */
  void dashedLine(double x1, double y1, double x2, double y2, int rgb, double opacity, double width, double dash);

  /** A filled circle with an outline (a point of a scatter plot). */
  void dot(double cx, double cy, double r, int fillRgb, int strokeRgb, double strokeWidth);

  /**
   * Text with its baseline at y; {@code rotate} in degrees (−90 for a column label read bottom-up),
   * around the anchor point.
   */
  void text(String s, double x, double y, double size, boolean bold, int rgb, Anchor anchor, double rotate);

  /**
   * A heatmap: {@code rows x cols} cells of ARGB colours (row-major), stretched over the box without
   * smoothing, so each cell stays a sharp rectangle.
   */
  void cells(int[] argb, int cols, int rows, double x, double y, double w, double h);

  /** The width of a text as this surface draws it (layout uses it for legends and margins). */
  double textWidth(String s, double size, boolean bold);
}
