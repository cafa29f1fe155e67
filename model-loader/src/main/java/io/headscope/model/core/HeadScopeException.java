package io.headscope.model.core;

/**
 * A problem the user can act on: bad input, a missing or corrupt checkpoint, an unwritable path.
 *
 * <p>The message is one complete sentence meant for a person (the CLI prints it as its one-line
 * error, the GUI shows it in a dialog); it names the file or the input and says what is wrong. Code
 * that catches this never prints a stack trace.
 */
public class HeadScopeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message naming a file HeadScope derived into its cache names the user's file instead ({@link CacheCopies}) */
  public HeadScopeException(String message) {
    super(CacheCopies.userFacing(message));
  }

  public HeadScopeException(String message, Throwable cause) {
    super(CacheCopies.userFacing(message), cause);
  }
}
