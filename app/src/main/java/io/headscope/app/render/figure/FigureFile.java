package io.headscope.app.render.figure;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import javax.imageio.ImageIO;

/** Writes a figure as PNG (at a scale: 3.125 for 300 dpi) or SVG, atomically (temp file and rename). */
public final class FigureFile {
  /** The scale of a 300-dpi PNG: figures are laid out at 96 dpi. */
  public static final double DPI_300 = 300.0 / 96;
  /** The largest side of a PNG, in pixels (256 MB as RGB ints). */
  public static final int MAX_SIDE = 16384;

  public enum Format {
    PNG, SVG;

    /** The format a file name asks for: {@code .svg} is SVG, anything else PNG. */
    public static Format of(Path file) {
      return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".svg") ? SVG : PNG;
    }

    public static Format parse(String s) {
      return switch (s == null ? "" : s.trim().toLowerCase(Locale.ROOT)) {
        case "png" -> PNG;
        case "svg" -> SVG;
        default -> throw new HeadScopeException("Format \"" + s + "\" is unknown: use png or svg.");
      };
    }

    public String extension() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private FigureFile() {}

  /** Where a plain figure's caption goes: beside it, {@code grid.txt} for {@code grid.png}. */
  public static Path captionFile(Path figure) {
    String name = figure.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return figure.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + ".txt");
  }

  /** Writes a plain figure's caption (its title block as text) beside it, atomically. */
  public static void writeCaption(Figure f, Path figure) {
    SafeFiles.writeAtomically(captionFile(figure), true,
        o -> o.write((f.caption() + "\n").getBytes(StandardCharsets.UTF_8)));
  }

  /** Replaces {@code file} with the figure (the save dialog or --force has allowed it). */
  public static void write(Figure f, Path file, Format format, double scale) {
    SafeFiles.writeAtomically(file, true, content(f, format, scale));
  }

  /**
   * The figure as the bytes of its file, drawn when written (for a set of figures written together: one
   * image in memory at a time).
   */
  public static SafeFiles.Content content(Figure f, Format format, double scale) {
    if (format == Format.SVG) {
      return out -> out.write(svg(f).getBytes(StandardCharsets.UTF_8));
    }
    return out -> {
      if (!ImageIO.write(png(f, scale), "png", out)) {
        throw new IOException("no PNG writer");
      }
    };
  }

  /** The figure's pixels at a scale (1 = 96 dpi); refused when a side would pass {@link #MAX_SIDE}. */
  public static BufferedImage png(Figure f, double scale) {
    if (!(scale > 0)) {
      throw new HeadScopeException("The PNG scale must be above 0.");
    }
    if (f.width() * scale > MAX_SIDE || f.height() * scale > MAX_SIDE) {
      throw new HeadScopeException(String.format(Locale.ROOT, "The figure would be %.0f x %.0f pixels at scale %.3g, "
          + "over the %d-pixel limit: use a smaller scale (or SVG).", f.width() * scale, f.height() * scale, scale, MAX_SIDE));
    }
    Java2DSurface s = new Java2DSurface(f.width(), f.height(), scale);
    f.painter().accept(s);
    return s.finish();
  }

  /** The figure as an SVG document. */
  public static String svg(Figure f) {
    SvgSurface s = new SvgSurface(f.width(), f.height());
    f.painter().accept(s);
    return s.finish(f.title(), f.description());
  }
}
