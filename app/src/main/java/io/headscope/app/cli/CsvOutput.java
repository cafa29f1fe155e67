package io.headscope.app.cli;

/** Where a table command's CSV goes (see {@link ResultOutput}); a CSV ends with its own line break. */
final class CsvOutput extends ResultOutput {
  @Override
  boolean endsWithLineBreakOnStdout() {
    return false;
  }

  @Override
  Output.Format format() {
    return Output.Format.CSV;
  }
}
