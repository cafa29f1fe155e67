package io.headscope.app.gui;

import io.headscope.app.gui.dialog.FileAsker;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * The file dialogs' answers in a UI test: each dialog returns what its supplier holds when it is asked (a test sets the
 * export target just before clicking Export), or null, as a user who cancels.
 */
final class FixedAnswers implements FileAsker {
  private Supplier<Path> save = () -> null;
  private Supplier<Path> folder = () -> null;
  private Supplier<Path> file = () -> null;

  /** Every save dialog answers with what {@code target} holds then. */
  static FixedAnswers saving(Supplier<Path> target) {
    FixedAnswers answers = new FixedAnswers();
    answers.save = target;
    return answers;
  }

  /** An open-folder dialog answers with what {@code chosen} holds then. */
  FixedAnswers openingFolder(Supplier<Path> chosen) {
    folder = chosen;
    return this;
  }

  /** An open-file dialog answers with what {@code chosen} holds then. */
  FixedAnswers openingFile(Supplier<Path> chosen) {
    file = chosen;
    return this;
  }

  @Override
  public Path save(String title, String extension, String suggestedName) {
    return save.get();
  }

  @Override
  public Path openFolder(String title) {
    return folder.get();
  }

  @Override
  public Path openFile(String title) {
    return file.get();
  }
}
