package io.headscope.app.cli;

import io.headscope.model.HeadScopeException;

/** A bad command line (an option's value out of range, options that do not go together): exit 2. */
final class UsageException extends HeadScopeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }

  UsageException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The off mode of --mode, as a usage error when unknown. */
  static io.headscope.model.HeadMask.Mode mode(String mode) {
    try {
      return io.headscope.model.HeadMask.Mode.parse(mode);
    } catch (HeadScopeException e) {
      throw new UsageException("--mode: " + e.getMessage(), e);
    }
  }
}
