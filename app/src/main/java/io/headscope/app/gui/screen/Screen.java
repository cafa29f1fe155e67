package io.headscope.app.gui.screen;

import java.util.List;
import javafx.scene.Node;

/**
 * A built screen: its content, the exports it offers in the Export menu, and what its menu entry does
 * besides showing it (the sweep and FAVOR+ start at once, as they always did).
 */
public record Screen(Node view, List<ExportItem> exports, Runnable onMenu) {
  public Screen {
    exports = List.copyOf(exports);
  }

  public Screen(Node view, List<ExportItem> exports) {
    this(view, exports, () -> { });
  }
}
