package io.headscope.app.render.figure;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Base64;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * A figure as SVG 1.1 text. Heatmap cells become rectangles (a row's runs of one colour merged into
 * one), so a journal's vector pipeline can recolour or re-typeset them; above {@link #VECTOR_CELLS}
 * cells a map is embedded as a PNG image instead (a 512 x 512 map as 262,144 rectangles is tens of
 * megabytes), and a comment says so.
 */
final class SvgSurface implements Surface {
  /** Maps up to this many cells are written as rectangles. */
  static final int VECTOR_CELLS = 200 * 200;
  private final StringBuilder body = new StringBuilder();
  private final double width;
  private final double height;

  SvgSurface(double width, double height) {
    this.width = width;
    this.height = height;
  }

  /** The document: title and description first (screen readers and file browsers show them). */
  String finish(String title, String description) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%s\" "
            + "height=\"%s\" viewBox=\"0 0 %s %s\" font-family=\"%s\">%n", n(width), n(height), n(width), n(height),
            Fonts.SVG_FAMILY)
        + "<title>" + escape(title) + "</title>\n<desc>" + escape(description) + "</desc>\n"
        + "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n" + body + "</svg>\n";
  }

  @Override
  public void fill(double x, double y, double w, double h, int rgb) {
    body.append(String.format(Locale.ROOT, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" stroke=\"none\"/>%n",
        n(x), n(y), n(w), n(h), hex(rgb)));
  }

  @Override
  public void stroke(double x, double y, double w, double h, int rgb, double width) {
    body.append(String.format(Locale.ROOT, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" "
        + "stroke=\"%s\" stroke-width=\"%s\"/>%n", n(x), n(y), n(w), n(h), hex(rgb), n(width)));
  }

  @Override
  public void line(double x1, double y1, double x2, double y2, int rgb, double opacity, double width) {
    body.append(String.format(Locale.ROOT, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" "
        + "stroke-opacity=\"%s\" stroke-width=\"%s\" stroke-linecap=\"round\"/>%n",
        n(x1), n(y1), n(x2), n(y2), hex(rgb), n(Math.max(0, Math.min(1, opacity))), n(width)));
  }

  @Override
  public void dashedLine(double x1, double y1, double x2, double y2, int rgb, double opacity, double width, double dash) {
    body.append(String.format(Locale.ROOT, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" "
        + "stroke-opacity=\"%s\" stroke-width=\"%s\" stroke-dasharray=\"%s %s\"/>%n",
        n(x1), n(y1), n(x2), n(y2), hex(rgb), n(Math.max(0, Math.min(1, opacity))), n(width), n(dash), n(dash)));
  }

  @Override
  public void dot(double cx, double cy, double r, int fillRgb, int strokeRgb, double strokeWidth) {
    body.append(String.format(Locale.ROOT, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\"%s/>%n", n(cx), n(cy),
        n(r), hex(fillRgb), strokeWidth > 0
            ? String.format(Locale.ROOT, " stroke=\"%s\" stroke-width=\"%s\"", hex(strokeRgb), n(strokeWidth)) : ""));
  }

  @Override
  public void text(String s, double x, double y, double size, boolean bold, int rgb, Anchor anchor, double rotate) {
    String a = switch (anchor) {
      case START -> "start";
      case MIDDLE -> "middle";
      case END -> "end";
    };
    body.append(String.format(Locale.ROOT, "<text x=\"%s\" y=\"%s\" font-size=\"%s\"%s fill=\"%s\" text-anchor=\"%s\"%s>%s</text>%n",
        n(x), n(y), n(size), bold ? " font-weight=\"bold\"" : "", hex(rgb), a,
        rotate == 0 ? "" : String.format(Locale.ROOT, " transform=\"rotate(%s %s %s)\"", n(rotate), n(x), n(y)),
        escape(s)));
  }

  @Override
  public void cells(int[] argb, int cols, int rows, double x, double y, double w, double h) {
    if ((long) cols * rows > VECTOR_CELLS) {
      java.awt.image.BufferedImage img = new java.awt.image.BufferedImage(cols, rows, java.awt.image.BufferedImage.TYPE_INT_ARGB);
      img.setRGB(0, 0, cols, rows, argb, 0, cols);
      ByteArrayOutputStream png = new ByteArrayOutputStream();
      try {
        ImageIO.write(img, "png", png);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      body.append(String.format(Locale.ROOT, "<!-- %d x %d cells: embedded as a PNG, one pixel per cell -->%n", rows, cols));
      body.append(String.format(Locale.ROOT, "<image x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
          + "preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,%s\"/>%n",
          n(x), n(y), n(w), n(h), Base64.getEncoder().encodeToString(png.toByteArray())));
      return;
    }
    double cw = w / cols;
    double ch = h / rows;
    body.append("<g shape-rendering=\"crispEdges\">\n");
    for (int i = 0; i < rows; i++) {
      int j = 0;
      while (j < cols) {
        int c = argb[i * cols + j];
        int k = j + 1;
        while (k < cols && argb[i * cols + k] == c) {
          k++;
        }
        if ((c & 0xFFFFFF) != 0xFFFFFF) { // white is the background already
          fill(x + j * cw, y + i * ch, (k - j) * cw, ch, c & 0xFFFFFF);
        }
        j = k;
      }
    }
    body.append("</g>\n");
  }

  @Override
  public double textWidth(String s, double size, boolean bold) {
    return Fonts.width(s, size, bold);
  }

  private static String hex(int rgb) {
    return String.format(Locale.ROOT, "#%06x", rgb & 0xFFFFFF);
  }

  /** Numbers with at most 3 decimals, no exponent. */
  private static String n(double v) {
    String s = String.format(Locale.ROOT, "%.3f", v);
    s = s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
    return s.equals("-0") ? "0" : s;
  }

  /** XML text: the five special characters escaped; characters XML 1.0 forbids dropped. */
  static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length());
    s.codePoints().forEach(cp -> {
      switch (cp) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&apos;");
        default -> {
          boolean allowed = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF)
              || (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
          if (allowed) {
            out.appendCodePoint(cp);
          }
        }
      }
    });
    return out.toString();
  }
}
