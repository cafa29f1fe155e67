package io.headscope.app.gui.style;

import io.headscope.app.render.Palette;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;

/** Heatmaps as JavaFX images: one pixel per cell, to be scaled without smoothing. */
public final class FxImages {
  private FxImages() {}

  /** The largest value: thumbnails use their own scale so weak structure stays visible. */
  public static double max(float[][] m) {
    return Palette.max(m);
  }

  public static WritableImage heatmap(float[][] m, double max, boolean dimmed) {
    return heatmap(m, max, dimmed, false);
  }

  /** As {@link #heatmap(float[][], double, boolean)}; {@code signed} uses the diverging scale ±max. */
  public static WritableImage heatmap(float[][] m, double max, boolean dimmed, boolean signed) {
    return image(signed ? Palette.divergingPixels(m, max) : Palette.pixels(m, max), m, dimmed);
  }

  /** An image of ready pixels (one per cell, row-major, {@code width} a row), greyed when {@code dimmed}. */
  public static WritableImage image(int[] pixels, int width, int height, boolean dimmed) {
    WritableImage img = new WritableImage(Math.max(1, width), Math.max(1, height));
    if (pixels.length == 0) {
      return img;
    }
    int[] px = dimmed ? Palette.dimmed(pixels) : pixels;
    img.getPixelWriter().setPixels(0, 0, width, height, PixelFormat.getIntArgbInstance(), px, 0, width);
    return img;
  }

  /** An image of ready pixels (one per cell, row-major), greyed when {@code dimmed}. */
  public static WritableImage image(int[] pixels, float[][] m, boolean dimmed) {
    int rows = Math.max(1, m.length);
    int cols = Math.max(1, m.length == 0 ? 1 : m[0].length);
    WritableImage img = new WritableImage(cols, rows);
    if (m.length == 0 || m[0].length == 0) {
      return img;
    }
    int[] px = pixels;
    if (dimmed) {
      px = Palette.dimmed(px);
    }
    img.getPixelWriter().setPixels(0, 0, cols, rows, PixelFormat.getIntArgbInstance(), px, 0, cols);
    return img;
  }
}
