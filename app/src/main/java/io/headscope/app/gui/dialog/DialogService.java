package io.headscope.app.gui.dialog;

import java.util.Optional;

/**
 * The questions and messages the app puts to the user in a window of their own (JabRef's
 * DialogService idea): views ask through this, so no view builds an Alert and tests can answer.
 * File choosers are the {@link io.headscope.app.gui.main.FileAsker}'s.
 */
public interface DialogService {
  /** Says that something could not be done (one line for a person). */
  void showError(String message);

  /** Shows a page of text to read (help), without blocking the window. */
  default void showText(String title, String text) {
  }

  /**
   * Asks for one line of text.
   *
   * @return the answer, stripped, or empty when the user cancelled or gave nothing
   */
  Optional<String> askText(String title, String header, String label, String initial);
}
