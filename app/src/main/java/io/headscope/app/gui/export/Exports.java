package io.headscope.app.gui.export;

import io.headscope.analysis.export.JsonExport;
import io.headscope.model.AttentionTrace;
import io.headscope.model.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import javax.imageio.ImageIO;

/**
 * The GUI's files, each written atomically (temp file + rename): the user already confirmed any
 * overwrite in the save dialog, so existing files are replaced.
 */
public final class Exports {
  private Exports() {}

  public static void attentionJson(AttentionTrace t, Path file) {
    if (t == null) {
      throw new HeadScopeException("Nothing to export yet: type a sentence first.");
    }
    SafeFiles.writeAtomically(file, true, out -> JsonExport.attention(t, out));
  }

  public static void png(BufferedImage image, Path file) {
    SafeFiles.writeAtomically(file, true, out -> {
      if (!ImageIO.write(image, "png", out)) {
        throw new IOException("no PNG writer");
      }
    });
  }
}
