package io.headscope.app.cli.serve;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Standard error in {@code serve}: every byte goes on to the real stream as before, and each finished line
 * is also shown to a listener (the running request, which keeps its one-line warnings and its error). A
 * progress bar's carriage returns leave only the text after the last one.
 */
public final class LineTap extends OutputStream {
  private final OutputStream through;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private volatile Consumer<String> listener;

  public LineTap(OutputStream through) {
    this.through = through;
  }

  /** Who hears the finished lines from now on; null: nobody. */
  public void listen(Consumer<String> l) {
    synchronized (this) {
      line.reset();
      listener = l;
    }
  }

  @Override
  public synchronized void write(int b) throws IOException {
    through.write(b);
    take(b);
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) throws IOException {
    through.write(b, off, len);
    for (int i = off; i < off + len; i++) {
      take(b[i]);
    }
  }

  @Override
  public synchronized void flush() throws IOException {
    through.flush();
  }

  private void take(int b) {
    Consumer<String> l = listener;
    if (l == null) {
      return;
    }
    if (b == '\n') {
      String s = line.toString(StandardCharsets.UTF_8);
      line.reset();
      int cr = s.lastIndexOf('\r');
      l.accept(cr >= 0 ? s.substring(cr + 1) : s);
    } else if (line.size() < 1 << 20) {
      line.write(b);
    }
  }
}
