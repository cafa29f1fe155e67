package io.headscope.app.cli;

/** Where a JSON result goes (see {@link ResultOutput}); standard output gets a line break after it. */
final class JsonOutput extends ResultOutput {
  @Override
  boolean endsWithLineBreakOnStdout() {
    return true;
  }

  @Override
  Output.Format format() {
    return Output.Format.JSON;
  }
}
