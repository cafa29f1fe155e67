package io.headscope.app.cli;

import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Where a command's result goes: stdout, or a file written atomically. */
final class Output {
  private Output() {}

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
