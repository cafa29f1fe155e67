package io.headscope.model.store;

import java.nio.file.Path;

/** A child process for the signal tests: writes an output slowly, saying when it has begun. */
public final class SlowWriter {
  private SlowWriter() {}

  public static void main(String[] args) {
    SafeFiles.writeAtomically(Path.of(args[0]), false, out -> {
      byte[] chunk = new byte[64 * 1024];
      for (int i = 0; ; i++) {
        out.write(chunk);
        out.flush();
        if (i == 10) {
          System.out.println("writing");
          System.out.flush();
        }
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          throw new java.io.InterruptedIOException();
        }
      }
    });
  }
}
