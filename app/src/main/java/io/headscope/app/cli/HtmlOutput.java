package io.headscope.app.cli;

/**
 * Where an interactive page goes (see {@link ResultOutput}): a file written atomically, or standard output.
 * The page is one HTML document that ends with its own line break.
 */
final class HtmlOutput extends ResultOutput {
  @Override
  Output.Format format() {
    return Output.Format.HTML;
  }

  @Override
  boolean endsWithLineBreakOnStdout() {
    return false;
  }
}
