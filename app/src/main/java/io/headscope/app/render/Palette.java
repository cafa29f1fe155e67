package io.headscope.app.render;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.TokenType;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The colour scale every heatmap uses, as ARGB ints so the window (WritableImage) and the headless
 * renderer (BufferedImage) draw identical pixels: white at 0 through blue to near-black navy at max.
 */
public final class Palette {
  private static final int[] STOPS = {0xFFFFFFFF, 0xFFC6DBEF, 0xFF6BAED6, 0xFF2171B5, 0xFF08306B};

  private Palette() {}

  /**
   * Every named colour (categories, token types, {@link UiColor}s) by its looked-up colour name
   * ({@code -hs-category-vertical}, {@code -hs-off}...), in a stable order: the window turns this into
   * a small stylesheet read before headscope.css, so the stylesheet uses the colours without
   * repeating them.
   */
  public static Map<String, Integer> lookedUpColors() {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (HeadPattern p : HeadPattern.values()) {
      out.put("-hs-" + CategoryColors.cssName(p), CategoryColors.rgb(p));
    }
    for (TokenType t : TokenType.values()) {
      out.put("-hs-" + TokenTypeColors.cssName(t), TokenTypeColors.rgb(t));
    }
    for (UiColor c : UiColor.values()) {
      out.put("-hs-" + c.cssName(), c.rgb());
    }
    return out;
  }

  /** The largest value: thumbnails use their own scale so weak structure stays visible. */
  public static double max(float[][] m) {
    double max = 0;
    for (float[] row : m) {
      for (float v : row) {
        max = Math.max(max, v);
      }
    }
    return max;
  }

  /** The colour of {@code v} on a scale 0..max (values outside are clamped). */
  public static int argb(double v, double max) {
    double t = max <= 0 ? 0 : Math.max(0, Math.min(1, v / max));
    double pos = t * (STOPS.length - 1);
    int k = Math.min(STOPS.length - 2, (int) pos);
    double f = pos - k;
    int a = STOPS[k];
    int b = STOPS[k + 1];
    int r = (int) Math.round(((a >> 16) & 0xFF) * (1 - f) + ((b >> 16) & 0xFF) * f);
    int g = (int) Math.round(((a >> 8) & 0xFF) * (1 - f) + ((b >> 8) & 0xFF) * f);
    int bl = (int) Math.round((a & 0xFF) * (1 - f) + (b & 0xFF) * f);
    return 0xFF000000 | (r << 16) | (g << 8) | bl;
  }

  /**
   * A diverging scale for signed effects: red below zero (removing the head hurt), blue above (it
   * helped), white at zero; clamped at {@code maxAbs}.
   */
  public static int diverging(double v, double maxAbs) {
    double t = maxAbs <= 0 ? 0 : Math.max(-1, Math.min(1, v / maxAbs));
    int target = t < 0 ? 0xB2182B : 0x2166AC;
    double f = Math.abs(t);
    int r = (int) Math.round(255 * (1 - f) + ((target >> 16) & 0xFF) * f);
    int g = (int) Math.round(255 * (1 - f) + ((target >> 8) & 0xFF) * f);
    int b = (int) Math.round(255 * (1 - f) + (target & 0xFF) * f);
    return 0xFF000000 | (r << 16) | (g << 8) | b;
  }

  /** One pixel per cell, row-major, ready for {@code PixelWriter.setPixels} or {@code BufferedImage.setRGB}. */
  public static int[] pixels(float[][] m, double max) {
    int rows = m.length;
    int cols = rows == 0 ? 0 : m[0].length;
    int[] out = new int[rows * cols];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        out[i * cols + j] = argb(m[i][j], max);
      }
    }
    return out;
  }

  /** The map as run minus the intact map, cell by cell (the "difference" display). */
  public static float[][] difference(float[][] a, float[][] b) {
    float[][] d = new float[a.length][];
    for (int i = 0; i < a.length; i++) {
      d[i] = new float[a[i].length];
      for (int j = 0; j < a[i].length; j++) {
        d[i][j] = a[i][j] - b[i][j];
      }
    }
    return d;
  }

  /**
   * Shrinks a map to at most {@code side} cells a side by taking each block's maximum, so a 512-token
   * thumbnail costs a 128 x 128 image and a thin diagonal or column still shows.
   */
  public static float[][] pooled(float[][] m, int side) {
    return pool(m, side, Math::max);
  }

  /** Which value a block keeps, given the one kept so far and the next cell's. */
  private interface Keep {
    float keep(float kept, float next);
  }

  /** Each block of the map down to at most {@code side} cells a side, combined by {@code keep}. */
  private static float[][] pool(float[][] m, int side, Keep keep) {
    int n = m.length;
    int c = n == 0 ? 0 : m[0].length;
    if (n <= side && c <= side) {
      return m;
    }
    int rows = Math.min(n, side);
    int cols = Math.min(c, side);
    float[][] out = new float[rows][cols];
    for (int i = 0; i < n; i++) {
      int r = (int) ((long) i * rows / n);
      for (int j = 0; j < c; j++) {
        int k = (int) ((long) j * cols / c);
        out[r][k] = keep.keep(out[r][k], m[i][j]);
      }
    }
    return out;
  }

  /** One pixel per cell of a signed map on the {@link #diverging} scale, clamped at {@code maxAbs}. */
  public static int[] divergingPixels(float[][] m, double maxAbs) {
    int rows = m.length;
    int cols = rows == 0 ? 0 : m[0].length;
    int[] out = new int[rows * cols];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        out[i * cols + j] = diverging(m[i][j], maxAbs);
      }
    }
    return out;
  }

  /** The largest absolute value: the end of a diverging scale. */
  public static double maxAbs(float[][] m) {
    double max = 0;
    for (float[] row : m) {
      for (float v : row) {
        max = Math.max(max, Math.abs(v));
      }
    }
    return max;
  }

  /**
   * {@link #pooled} for signed maps: each block keeps its value of largest magnitude, with its sign,
   * so a small rise next to a large fall still shows as the fall.
   */
  public static float[][] pooledSigned(float[][] m, int side) {
    return pool(m, side, (kept, next) -> Math.abs(next) > Math.abs(kept) ? next : kept);
  }

  /** Greys a switched-off head's map so the grid shows at a glance what is off. */
  public static int[] dimmed(int[] pixels) {
    int[] out = new int[pixels.length];
    for (int i = 0; i < pixels.length; i++) {
      int p = pixels[i];
      int grey = (((p >> 16) & 0xFF) + ((p >> 8) & 0xFF) + (p & 0xFF)) / 3;
      grey = 160 + grey * 95 / 255;
      out[i] = 0xFF000000 | (grey << 16) | (grey << 8) | grey;
    }
    return out;
  }
}
