package io.headscope.app.gui.screen;

import java.util.List;
import javafx.scene.Node;

/**
 * A built screen, as the main window sees it: its content, the exports it offers in the Export menu,
 * and what its menu entry does besides showing it (the sweep and FAVOR+ start at once).
 */
public interface Screen {
  Node view();

  default List<ExportItem> exports() {
    return List.of();
  }

  default void onMenu() {
  }
}
