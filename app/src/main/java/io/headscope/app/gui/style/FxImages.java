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
    int rows = Math.max(1, m.length);
    int cols = Math.max(1, m.length == 0 ? 1 : m[0].length);
    WritableImage img = new WritableImage(cols, rows);
    if (m.length == 0 || m[0].length == 0) {
      return img;
    }
    int[] px = Palette.pixels(m, max);
    if (dimmed) {
      px = Palette.dimmed(px);
    }
    img.getPixelWriter().setPixels(0, 0, cols, rows, PixelFormat.getIntArgbInstance(), px, 0, cols);
    return img;
  }
}
