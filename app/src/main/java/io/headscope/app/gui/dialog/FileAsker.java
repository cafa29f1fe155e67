package io.headscope.app.gui.dialog;

import java.nio.file.Path;

/** Asks the user for a file or folder (a dialog in the app; a fixed answer in UI tests). */
public interface FileAsker {
  /** @return the chosen path, or null when the user cancelled */
  Path save(String title, String extension, String suggestedName);

  /** A file of one of several types (the first is suggested); by default only the first is offered. */
  default Path save(String title, java.util.List<String> extensions, String suggestedName) {
    return save(title, extensions.get(0), suggestedName);
  }

  Path openFolder(String title);

  Path openFile(String title);
}
