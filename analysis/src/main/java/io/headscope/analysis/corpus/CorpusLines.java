package io.headscope.analysis.corpus;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The corpus format read one input at a time: UTF-8 text, one input per line, a TAB between the two
 * sentences of a pair. Memory does not grow with the file: a line is never held beyond
 * {@code maxChars} characters (the rest of an over-long line, or of a file with no line breaks, is
 * skipped unread), and of the skipped lines only the first {@link #KEPT_PROBLEMS} are kept, the rest
 * counted. Blank, malformed and over-long lines are skipped and reported with their numbers.
 */
public final class CorpusLines implements AutoCloseable {
  /** A line this long is not a corpus line but a file without line breaks: reading stops. */
  public static final long GIVE_UP_CHARS = 10_000_000;

  /** Skipped lines kept with their reasons; more are only counted. */
  public static final int KEPT_PROBLEMS = 1000;

  /** What {@link #readLine} returns for a line it skipped itself (compared by identity). */
  private static final String SKIPPED = new String("skipped");

  private final String name;
  private final Reader in;
  private final CountingStream counter;
  private final long size;
  private final int maxChars;
  private final List<CorpusProblem> problems = new ArrayList<>();
  private int problemCount;
  private int number;
  private boolean ended;
  /** Whose inputs {@link #next} returns, and whose skipped lines are reported (by line number). */
  private Shard inputsOf = Shard.ALL;
  private Shard problemsOf = Shard.ALL;

  private CorpusLines(String name, Reader in, CountingStream counter, long size, int maxChars) {
    this.name = name;
    this.in = in;
    this.counter = counter;
    this.size = size;
    this.maxChars = maxChars;
  }

  /** The most of a pipe ({@code <(...)}, {@code /dev/stdin}) a run keeps to read it again. */
  static final int PIPE_LIMIT = 256 << 20;
  private static final java.util.Map<Path, byte[]> PIPES = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Opens a corpus file. A pipe can be read only once, yet a run may read its corpus twice (the labels of
   * a labelled file, then its lines): its content is kept from the first opening for the run's later ones.
   * A device (/dev/zero) is read as it goes, as a file is, and refused as soon as it is not text.
   */
  public static CorpusLines open(Path file, int maxChars) {
    if (Files.isDirectory(file)) {
      throw new HeadScopeException(file + " is a folder; give a corpus file (one input per line).");
    }
    if (isPipe(file)) {
      byte[] content = PIPES.computeIfAbsent(file.toAbsolutePath().normalize(), k -> readPipe(file));
      CountingStream counter = new CountingStream(new java.io.ByteArrayInputStream(content));
      return new CorpusLines(file.toString(), decoder(counter), counter, content.length, maxChars);
    }
    try {
      long size = Files.isRegularFile(file) ? Files.size(file) : -1; // -1: a pipe or a device
      CountingStream counter = new CountingStream(Files.newInputStream(file));
      return new CorpusLines(file.toString(), decoder(counter), counter, size, maxChars);
    } catch (NoSuchFileException e) {
      throw new HeadScopeException("The corpus file " + file + " does not exist.", e);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the corpus file " + file + ": " + e.getMessage() + ".", e);
    }
  }

  /** A named or anonymous pipe ({@code <(...)}, {@code /dev/stdin} fed by a pipe), not a device such as /dev/zero. */
  private static boolean isPipe(Path file) {
    try {
      return (((Integer) Files.getAttribute(file, "unix:mode")) & 0170000) == 0010000; // S_IFIFO
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
      return false;
    }
  }

  private static byte[] readPipe(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] content = in.readNBytes(PIPE_LIMIT + 1);
      if (content.length > PIPE_LIMIT) {
        throw new HeadScopeException(file + " is a pipe with more than " + (PIPE_LIMIT >> 20) + " MB; save it to a "
            + "file and give that (a file is read as it goes, a pipe is kept to be read again).");
      }
      return content;
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the corpus file " + file + ": " + e.getMessage() + ".", e);
    }
  }

  /** Reads a stream (a shipped corpus, text typed in the app). */
  public static CorpusLines of(String name, InputStream stream, int maxChars) {
    CountingStream counter = new CountingStream(stream);
    return new CorpusLines(name, decoder(counter), counter, -1, maxChars);
  }

  public String name() {
    return name;
  }

  /**
   * Reads only this shard's lines from now on: the others are read past unparsed, and their problems
   * are left to the shard that owns them. Returns this reader.
   */
  public CorpusLines only(Shard s) {
    this.inputsOf = s;
    this.problemsOf = s;
    return this;
  }

  /**
   * Returns every input but reports only the skipped lines of this shard (for a shard that needs to see
   * the whole corpus to plan its work, each skipped line still counted once over the shards).
   */
  public CorpusLines reportingFor(Shard s) {
    this.problemsOf = s;
    return this;
  }

  /** The next usable input, or null at the end of the file. */
  public CorpusInput next() {
    while (!ended) {
      String line = readLine();
      if (line == null) {
        ended = true;
        break;
      }
      if (line == SKIPPED || !inputsOf.takesLine(number)) {
        continue;
      }
      CorpusInput input = parse(line);
      if (input != null) {
        return input;
      }
    }
    return null;
  }

  /**
   * The next line of this shard that the reader did not skip itself (over-long), without a leading byte
   * order mark, or null at the end; for formats built on the corpus format (labelled files), which parse
   * the line and {@link #report} what is wrong with it.
   */
  public String nextLine() {
    while (!ended) {
      String line = readLine();
      if (line == null) {
        ended = true;
        break;
      }
      if (line == SKIPPED || !inputsOf.takesLine(number)) {
        continue;
      }
      return number == 1 && line.startsWith("\uFEFF") ? line.substring(1) : line;
    }
    return null;
  }

  /** The 1-based number of the line read last. */
  public int lineNumber() {
    return number;
  }

  /** Reports a line skipped by the caller's parser (kept or counted like the reader's own). */
  public void report(int line, String message) {
    problem(line, message);
  }

  /** The share of the file read so far, or -1 when its size is unknown. */
  public double fractionRead() {
    return size <= 0 ? -1 : Math.min(1.0, counter.count / (double) size);
  }

  /** The skipped lines so far, the first {@link #KEPT_PROBLEMS} of them. */
  public List<CorpusProblem> problems() {
    return List.copyOf(problems);
  }

  /** How many lines were skipped so far (kept or only counted). */
  public int problemCount() {
    return problemCount;
  }

  private void problem(int line, String message) {
    if (!problemsOf.takesLine(line)) {
      return; // another shard's line: that shard reports it
    }
    problemCount++;
    if (problems.size() < KEPT_PROBLEMS) {
      problems.add(new CorpusProblem(line, message));
    }
  }

  private CorpusInput parse(String raw) {
    String line = number == 1 && raw.startsWith("\uFEFF") ? raw.substring(1) : raw;
    if (line.isBlank()) {
      problem(number, "blank line; skipped");
      return null;
    }
    String[] parts = line.split("\t", -1);
    if (parts.length > 2) {
      problem(number, (parts.length - 1) + " tabs, but a pair has one tab between its two sentences; skipped");
      return null;
    }
    String a = parts[0].strip();
    String b = parts.length == 2 ? parts[1].strip() : null;
    if (a.isEmpty() || (b != null && b.isEmpty())) {
      problem(number, "one side of the pair is empty; skipped");
      return null;
    }
    return new CorpusInput(number, a, b);
  }

  /**
   * One line without its terminator (\n, \r\n or \r), or null at the end; a line longer than
   * {@code maxChars} is reported and skipped without being held ({@link #SKIPPED}).
   */
  private String readLine() {
    StringBuilder sb = new StringBuilder();
    long length = 0;
    try {
      int c = in.read();
      if (c < 0) {
        return null;
      }
      number++;
      while (c >= 0 && c != '\n' && c != '\r') {
        if (c == 0) {
          throw new HeadScopeException("The corpus file " + name + " is not a text file (line " + number
              + " has a NUL byte); give UTF-8 text, one input per line.");
        }
        if (length < maxChars) {
          sb.append((char) c);
        }
        if (++length > GIVE_UP_CHARS) {
          throw new HeadScopeException("Line " + number + " of " + name + " runs past " + GIVE_UP_CHARS
              + " characters without a line break: not a corpus (one input per line).");
        }
        c = in.read();
      }
      if (c == '\r') {
        in.mark(1);
        if (in.read() != '\n') {
          in.reset();
        }
      }
    } catch (CharacterCodingException e) {
      throw new HeadScopeException("The corpus file " + name + " is not UTF-8 text (line " + Math.max(1, number)
          + ").", e);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the corpus file " + name + ": " + e.getMessage() + ".", e);
    }
    if (length > maxChars) {
      problem(number, "longer than " + maxChars + " characters (" + length + "); skipped");
      return SKIPPED;
    }
    return sb.toString();
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException ignored) {
      // reading is over
    }
  }

  private static Reader decoder(InputStream in) {
    return new java.io.BufferedReader(new java.io.InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)), 1 << 16);
  }

  /** Counts the bytes read, for progress through a file before its inputs are counted. */
  private static final class CountingStream extends java.io.FilterInputStream {
    volatile long count;

    CountingStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count += n;
      }
      return n;
    }
  }
}
