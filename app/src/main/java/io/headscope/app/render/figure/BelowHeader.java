package io.headscope.app.render.figure;

/**
 * A surface that drops what a figure draws in its title block (everything above {@code top}) and moves
 * the rest up by {@code cut}: how {@link Figure#plain()} leaves the block out of any figure without the
 * figure knowing. Every figure draws its block first and nothing else above {@code top}.
 */
final class BelowHeader implements Surface {
  private final Surface to;
  private final double top;
  private final double cut;

  BelowHeader(Surface to, double top, double cut) {
    this.to = to;
    this.top = top;
    this.cut = cut;
  }

  @Override
  public void fill(double x, double y, double w, double h, int rgb) {
    if (y + h > top) {
      to.fill(x, y - cut, w, h, rgb);
    }
  }

  @Override
  public void stroke(double x, double y, double w, double h, int rgb, double width) {
    if (y + h > top) {
      to.stroke(x, y - cut, w, h, rgb, width);
    }
  }

  @Override
  public void line(double x1, double y1, double x2, double y2, int rgb, double opacity, double width) {
    if (Math.max(y1, y2) > top) {
      to.line(x1, y1 - cut, x2, y2 - cut, rgb, opacity, width);
    }
  }

  @Override
  public void dashedLine(double x1, double y1, double x2, double y2, int rgb, double opacity, double width, double dash) {
    if (Math.max(y1, y2) > top) {
      to.dashedLine(x1, y1 - cut, x2, y2 - cut, rgb, opacity, width, dash);
    }
  }

  @Override
  public void dot(double cx, double cy, double r, int fillRgb, int strokeRgb, double strokeWidth) {
    if (cy + r > top) {
      to.dot(cx, cy - cut, r, fillRgb, strokeRgb, strokeWidth);
    }
  }

  @Override
  public void text(String s, double x, double y, double size, boolean bold, int rgb, Anchor anchor, double rotate) {
    if (y > top) {
      to.text(s, x, y - cut, size, bold, rgb, anchor, rotate);
    }
  }

  @Override
  public void cells(int[] argb, int cols, int rows, double x, double y, double w, double h) {
    if (y + h > top) {
      to.cells(argb, cols, rows, x, y - cut, w, h);
    }
  }

  @Override
  public double textWidth(String s, double size, boolean bold) {
    return to.textWidth(s, size, bold);
  }
}
