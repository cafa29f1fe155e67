package io.headscope.app.cli;

import io.headscope.model.store.SafeFiles;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where a command's result goes: standard output, or a file written atomically and never over an existing
 * file without --force ({@link CsvOutput} for tables, {@link JsonOutput} for JSON).
 */
abstract class ResultOutput {
  @Option(names = "--out", paramLabel = "FILE", description = "Write the result here instead of standard output.")
  Path out;

  @Option(names = "--force", description = "Overwrite an existing --out file.")
  boolean force;

  /** Fails before any model work if the result could not be written. */
  void check() {
    Output.checkWritable(out, force);
  }

  void write(SafeFiles.Content content) {
    write(content, format());
  }

  /** A result of another format than the usual one (attention's .npz). */
  void write(SafeFiles.Content content, Output.Format format) {
    Output.write(out, force, content, endsWithLineBreakOnStdout(), format);
  }

  /** What the result is (headscope serve answers with it). */
  abstract Output.Format format();

  /** Whether standard output gets a line break after the result (JSON ends without one; CSV with one). */
  abstract boolean endsWithLineBreakOnStdout();
}
