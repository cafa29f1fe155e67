package io.headscope.app.render.figure;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;

/** A figure as pixels: a white image of the figure's size times {@code scale} (3.125 gives 300 dpi). */
final class Java2DSurface implements Surface {
  private final BufferedImage image;
  private final Graphics2D g;

  Java2DSurface(double width, double height, double scale) {
    image = new BufferedImage((int) Math.ceil(width * scale), (int) Math.ceil(height * scale), BufferedImage.TYPE_INT_RGB);
    g = image.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, image.getWidth(), image.getHeight());
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_FRACTIONALMETRICS, RenderingHints.VALUE_FRACTIONALMETRICS_ON);
    g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_NEAREST_NEIGHBOR);
    g.scale(scale, scale);
  }

  BufferedImage finish() {
    g.dispose();
    return image;
  }

  @Override
  public void fill(double x, double y, double w, double h, int rgb) {
    g.setColor(new Color(rgb));
    Object aa = g.getRenderingHint(RenderingHints.KEY_ANTIALIASING);
    // cells and bars touch without hairline gaps
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_OFF);
    g.fill(new Rectangle2D.Double(x, y, w, h));
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, aa);
  }

  @Override
  public void stroke(double x, double y, double w, double h, int rgb, double width) {
    g.setColor(new Color(rgb));
    g.setStroke(new BasicStroke((float) width));
    g.draw(new Rectangle2D.Double(x, y, w, h));
  }

  @Override
  public void line(double x1, double y1, double x2, double y2, int rgb, double opacity, double width) {
    g.setColor(new Color((rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF, (int) Math.round(255 * clamp(opacity))));
    g.setStroke(new BasicStroke((float) width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
    g.draw(new Line2D.Double(x1, y1, x2, y2));
  }

  @Override
  public void dashedLine(double x1, double y1, double x2, double y2, int rgb, double opacity, double width, double dash) {
    g.setColor(new Color((rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF, (int) Math.round(255 * clamp(opacity))));
    g.setStroke(new BasicStroke((float) width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f,
        new float[] {(float) dash, (float) dash}, 0f));
    g.draw(new Line2D.Double(x1, y1, x2, y2));
  }

  @Override
  public void dot(double cx, double cy, double r, int fillRgb, int strokeRgb, double strokeWidth) {
    java.awt.geom.Ellipse2D circle = new java.awt.geom.Ellipse2D.Double(cx - r, cy - r, 2 * r, 2 * r);
    g.setColor(new Color(fillRgb));
    g.fill(circle);
    if (strokeWidth > 0) {
      g.setColor(new Color(strokeRgb));
      g.setStroke(new BasicStroke((float) strokeWidth));
      g.draw(circle);
    }
  }

  @Override
  public void text(String s, double x, double y, double size, boolean bold, int rgb, Anchor anchor, double rotate) {
    g.setColor(new Color(rgb));
    g.setFont(Fonts.font(size, bold));
    double w = textWidth(s, size, bold);
    double dx = anchor == Anchor.START ? 0 : anchor == Anchor.MIDDLE ? -w / 2 : -w;
    AffineTransform saved = g.getTransform();
    g.translate(x, y);
    g.rotate(Math.toRadians(rotate));
    g.drawString(s, (float) dx, 0f);
    g.setTransform(saved);
  }

  @Override
  public void cells(int[] argb, int cols, int rows, double x, double y, double w, double h) {
    BufferedImage cells = new BufferedImage(cols, rows, BufferedImage.TYPE_INT_ARGB);
    cells.setRGB(0, 0, cols, rows, argb, 0, cols);
    AffineTransform saved = g.getTransform();
    g.translate(x, y);
    g.scale(w / cols, h / rows);
    g.drawImage(cells, 0, 0, null);
    g.setTransform(saved);
  }

  @Override
  public double textWidth(String s, double size, boolean bold) {
    return Fonts.width(s, size, bold);
  }

  private static double clamp(double v) {
    return Math.max(0, Math.min(1, v));
  }
}
