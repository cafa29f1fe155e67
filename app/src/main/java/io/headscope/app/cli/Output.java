package io.headscope.app.cli;

import io.headscope.model.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where a command's result goes: stdout, or a file written atomically. */
final class Output {
  private Output() {}

  /**
   * Refuses an output that could not be written (existing without --force, missing folder, a folder)
   * before the work, not after it; the file itself is written atomically at the end. Null is stdout.
   */
  static void checkWritable(Path out, boolean force) {
    if (out == null) {
      return;
    }
    Path abs = out.toAbsolutePath().normalize();
    if (Files.isDirectory(abs)) {
      throw new HeadScopeException(out + " is a folder; give a file name.");
    }
    if (Files.exists(abs) && !force) {
      throw new HeadScopeException(out + " already exists; use --force to overwrite it.");
    }
    if (abs.getParent() == null || !Files.isDirectory(abs.getParent())) {
      throw new HeadScopeException("Cannot write " + out + ": the folder " + abs.getParent() + " does not exist.");
    }
  }

  static void write(Path file, boolean force, SafeFiles.Content content) {
    if (file == null) {
      try {
        OutputStream out = new java.io.FilterOutputStream(System.out) {
          @Override
          public void close() throws IOException {
            flush(); // never close stdout
          }
        };
        content.writeTo(out);
        out.flush();
        System.out.println();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return;
    }
    SafeFiles.writeAtomically(file, force, content);
    System.err.println("headscope: wrote " + file);
  }
}
