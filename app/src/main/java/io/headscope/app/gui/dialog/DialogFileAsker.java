package io.headscope.app.gui.dialog;

import java.io.File;
import java.nio.file.Path;
import javafx.stage.DirectoryChooser;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/** The app's file dialogs; remembers the last folder. */
public final class DialogFileAsker implements FileAsker {
  private final java.util.function.Supplier<Window> owner;
  private File lastDir = new File(System.getProperty("user.home"));

  /** @param owner the window the choosers belong to (asked each time: null before it is shown) */
  public DialogFileAsker(java.util.function.Supplier<Window> owner) {
    this.owner = owner;
  }

  @Override
  public Path save(String title, String extension, String suggestedName) {
    FileChooser c = new FileChooser();
    c.setTitle(title);
    c.setInitialDirectory(lastDir.isDirectory() ? lastDir : null);
    c.setInitialFileName(suggestedName);
    c.getExtensionFilters().add(new FileChooser.ExtensionFilter(extension.toUpperCase() + " files", "*." + extension));
    return remember(c.showSaveDialog(owner.get()));
  }

  @Override
  public Path save(String title, java.util.List<String> extensions, String suggestedName) {
    FileChooser c = new FileChooser();
    c.setTitle(title);
    c.setInitialDirectory(lastDir.isDirectory() ? lastDir : null);
    c.setInitialFileName(suggestedName);
    for (String e : extensions) {
      c.getExtensionFilters().add(new FileChooser.ExtensionFilter(e.toUpperCase() + " files", "*." + e));
    }
    File f = c.showSaveDialog(owner.get());
    // the chosen filter decides the type when the name has no extension of its own
    if (f != null && !f.getName().contains(".") && c.getSelectedExtensionFilter() != null) {
      f = new File(f.getPath() + c.getSelectedExtensionFilter().getExtensions().get(0).substring(1));
    }
    return remember(f);
  }

  @Override
  public Path openFolder(String title) {
    DirectoryChooser c = new DirectoryChooser();
    c.setTitle(title);
    c.setInitialDirectory(lastDir.isDirectory() ? lastDir : null);
    File f = c.showDialog(owner.get());
    if (f != null) {
      lastDir = f.getParentFile() != null ? f.getParentFile() : f;
    }
    return f == null ? null : f.toPath();
  }

  @Override
  public Path openFile(String title) {
    FileChooser c = new FileChooser();
    c.setTitle(title);
    c.setInitialDirectory(lastDir.isDirectory() ? lastDir : null);
    return remember(c.showOpenDialog(owner.get()));
  }

  private Path remember(File f) {
    if (f == null) {
      return null;
    }
    lastDir = f.getParentFile();
    return f.toPath();
  }
}
