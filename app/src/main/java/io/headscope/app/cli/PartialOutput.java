package io.headscope.app.cli;

import io.headscope.analysis.shard.PartialFile;
import java.nio.file.Path;

/** Writes a shard's partial result where --out says, then says on stderr what the shard held. */
final class PartialOutput {
  private PartialOutput() {}

  static void write(Path out, boolean force, PartialFile.Contents part) {
    Output.write(out, force, PartialFile.content(part), false);
    System.err.println("headscope: shard " + part.header().shard() + ": " + part.summary());
  }

  static void write(CsvOutput output, PartialFile.Contents part) {
    write(output.out, output.force, part);
  }
}
