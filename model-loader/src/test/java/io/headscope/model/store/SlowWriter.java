package io.headscope.model.store;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A child process for the signal and shared-folder tests. {@code SlowWriter FILE}: writes an output
 * slowly, forever, saying when it has begun. {@code SlowWriter FILE STOPFILE}: the same until STOPFILE
 * exists, then finishes the write and says {@code done}. {@code SlowWriter FILE --once}: one small write.
 */
public final class SlowWriter {
  private SlowWriter() {}

  public static void main(String[] args) {
    Path target = Path.of(args[0]);
    if (args.length > 1 && args[1].equals("--once")) {
      SafeFiles.writeAtomically(target, false, out -> out.write('x'));
      System.out.println("done");
      return;
    }
    Path stop = args.length > 1 ? Path.of(args[1]) : null;
    SafeFiles.writeAtomically(target, false, out -> {
      byte[] chunk = new byte[64 * 1024];
      for (int i = 0; stop == null || !Files.exists(stop); i++) {
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
    System.out.println("done");
  }
}
