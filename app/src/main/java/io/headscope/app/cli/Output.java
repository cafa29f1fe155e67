package io.headscope.app.cli;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.AtomicOutput;
import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;

/** Where a command's result goes: stdout, or a file written atomically. */
final class Output {
  /** What a result on standard output is, for a caller that takes it whole ({@code headscope serve}). */
  enum Format {
    JSON, CSV, HTML, NPZ;

    /** The protocol's name: json, csv, html, npz. */
    String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** A result written without a stated format: a page, a JSON document, else a table. */
    static Format sniff(byte[] bytes) {
      String head = new String(bytes, 0, Math.min(bytes.length, 64), java.nio.charset.StandardCharsets.UTF_8).stripLeading();
      return head.startsWith("<") ? HTML : head.startsWith("{") || head.startsWith("[") ? JSON : CSV;
    }
  }

  /**
   * A request's result in {@code headscope serve}: what the command would have written on standard output,
   * with its format (the first write's). Only one request runs at a time, so one at a time is current.
   */
  static final class Captured {
    final Bytes bytes = new Bytes();
    Format format;

    /** A byte buffer whose first bytes can be looked at without copying the rest (a result may be 400 MB). */
    static final class Bytes extends java.io.ByteArrayOutputStream {
      synchronized byte[] head(int from, int n) {
        return java.util.Arrays.copyOfRange(buf, from, Math.min(count, from + n));
      }
    }
  }

  private static volatile Captured captured;

  private Output() {}

  /** From now on results meant for standard output go into {@code c} (null: to standard output again). */
  static void captureInto(Captured c) {
    captured = c;
  }

  /** Whether results are taken by {@code headscope serve} rather than written on standard output. */
  static boolean servingRequests() {
    return captured != null;
  }

  /**
   * Refuses an output that could not be written (existing without --force, not a regular file, a
   * missing or read-only folder) before the work, not after it; the file itself is written atomically
   * at the end. Null is stdout.
   */
  static void checkWritable(Path out, boolean force) {
    if (out != null) {
      AtomicOutput.check(out, force);
    }
  }

  static void write(Path file, boolean force, SafeFiles.Content content) {
    write(file, force, content, true);
  }

  /** @param newlineOnStdout end standard output with a line break (JSON ends without one; CSV with) */
  static void write(Path file, boolean force, SafeFiles.Content content, boolean newlineOnStdout) {
    write(file, force, content, newlineOnStdout, null);
  }

  /** @param format what the result is, for {@code headscope serve}; null: told from its first bytes */
  static void write(Path file, boolean force, SafeFiles.Content content, boolean newlineOnStdout, Format format) {
    Captured served = captured;
    if (file == null && served != null) {
      try {
        int from = served.bytes.size();
        content.writeTo(served.bytes);
        if (served.format == null) {
          served.format = format != null ? format : Format.sniff(served.bytes.head(from, 64));
        }
      } catch (IOException e) {
        throw new HeadScopeException("Cannot write the result: " + e.getMessage(), e);
      }
      return;
    }
    if (file == null) {
      writeToStdout(content, newlineOnStdout);
      return;
    }
    SafeFiles.writeAtomically(file, force, content);
    System.err.println("headscope: wrote " + file);
  }

  /**
   * Standard output is a PrintStream, which swallows write errors: each write checks it, so output
   * redirected to a full disk or a closed pipe stops at once with one line and exit 1.
   */
  private static void writeToStdout(SafeFiles.Content content, boolean newline) {
    PrintStream stdout = System.out;
    OutputStream checked = new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        stdout.write(b);
        check();
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        stdout.write(b, off, len);
        check();
      }

      @Override
      public void flush() throws IOException {
        check(); // checkError flushes
      }

      @Override
      public void close() throws IOException {
        flush(); // never close stdout
      }

      private void check() throws IOException {
        if (stdout.checkError()) {
          throw new IOException("writing to standard output failed");
        }
      }
    };
    try {
      content.writeTo(checked);
      if (newline) {
        stdout.println();
      }
      if (stdout.checkError()) {
        throw new IOException("writing to standard output failed");
      }
    } catch (IOException e) {
      throw new HeadScopeException("Cannot write to standard output (a full disk or a closed pipe?); "
          + "the output is incomplete.", e);
    }
  }
}
