package io.headscope.app.cli;

import io.headscope.model.store.SafeFiles;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where a JSON result goes: stdout, or a file written atomically and never overwritten without --force. */
final class JsonOutput {
  @Option(names = "--out", paramLabel = "FILE", description = "Write the JSON here instead of stdout.")
  Path out;

  @Option(names = "--force", description = "Overwrite an existing --out file.")
  boolean force;

  /** Fails before any model work if the result could not be written. */
  void check() {
    Output.checkWritable(out, force);
  }

  void write(SafeFiles.Content content) {
    Output.write(out, force, content);
  }
}
