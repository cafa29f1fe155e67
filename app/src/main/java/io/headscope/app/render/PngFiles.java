package io.headscope.app.render;

import io.headscope.model.store.SafeFiles;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import javax.imageio.ImageIO;

/** PNG files of both faces, written atomically (temp file + rename), replacing an existing file. */
public final class PngFiles {
  private PngFiles() {}

  public static void write(BufferedImage image, Path file) {
    SafeFiles.writeAtomically(file, true, out -> {
      if (!ImageIO.write(image, "png", out)) {
        throw new IOException("no PNG writer");
      }
    });
  }

  /** One picture above the other on white, left-aligned (the legend over the grid). */
  public static BufferedImage stacked(BufferedImage top, BufferedImage bottom) {
    int gap = 6;
    BufferedImage out = new BufferedImage(Math.max(top.getWidth(), bottom.getWidth()),
        top.getHeight() + gap + bottom.getHeight(), BufferedImage.TYPE_INT_RGB);
    java.awt.Graphics2D g = out.createGraphics();
    g.setColor(java.awt.Color.WHITE);
    g.fillRect(0, 0, out.getWidth(), out.getHeight());
    g.drawImage(top, 0, 0, null);
    g.drawImage(bottom, 0, top.getHeight() + gap, null);
    g.dispose();
    return out;
  }
}
