package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An unnamed temporary file that holds a run's arrays out of the process's memory: the queries and keys
 * a trace of summaries keeps for its maps on demand (0.4 GB for a 22-layer Llama at 2,048 tokens, which
 * in the Java heap counted against the process's resident memory as long as the trace was on screen;
 * in a file they sit in the kernel's page cache, which it may write out and reclaim).
 *
 * <p>The file is unlinked as it is opened ({@code DELETE_ON_CLOSE} on Unix), so nothing is left behind,
 * not even by a crash; its space returns when the channel closes: at {@link #close} or when the file
 * becomes unreachable. Where the temporary folder is a tmpfs the bytes stay in memory, outside the
 * process, and are freed at the same moments.
 */
public final class SpillFile implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();
  /** Spill files open now: each holds a file descriptor until it is closed or collected. */
  private static final java.util.concurrent.atomic.AtomicInteger OPEN = new java.util.concurrent.atomic.AtomicInteger();
  /**
   * Past this many open files a new one first asks for a collection, so that the unreachable ones close: a loop
   * over many traces that keeps none would otherwise hold a descriptor per trace until the collector happened to
   * run (1,024 is a common per-process limit). The JDK does the same for direct buffers ({@code Bits.reserveMemory}).
   */
  static final int COLLECT_ABOVE = 128;

  private final FileChannel channel;
  private final Cleaner.Cleanable closer;
  private final Path folder;
  private long end;

  private SpillFile(FileChannel channel, Path folder) {
    this.channel = channel;
    this.folder = folder;
    FileChannel c = channel; // the cleaning action must not reach this object
    OPEN.incrementAndGet();
    this.closer = CLEANER.register(this, () -> { // run once, by close or by the cleaner
      OPEN.decrementAndGet();
      try {
        c.close();
      } catch (IOException ignored) {
        // nothing to keep: the file has no name
      }
    });
  }

  /** A new empty file in {@code java.io.tmpdir}. */
  static SpillFile open() {
    return open(Path.of(System.getProperty("java.io.tmpdir")));
  }

  /** A new empty file in {@code folder}. */
  static SpillFile open(Path folder) {
    if (OPEN.get() >= COLLECT_ABOVE) {
      collectUnreachable();
    }
    Path p = null;
    try {
      p = Files.createTempFile(folder, "headscope-spill-", ".f32"); // readable by its owner only
      FileChannel c = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE,
          StandardOpenOption.DELETE_ON_CLOSE);
      Files.deleteIfExists(p); // where DELETE_ON_CLOSE did not unlink at once: the open channel keeps the data
      return new SpillFile(c, folder);
    } catch (IOException e) {
      if (p != null) {
        try {
          Files.deleteIfExists(p); // made but not opened: nothing may stay behind
        } catch (IOException ignored) {
          // the error below says what went wrong
        }
      }
      throw new HeadScopeException("Could not make a temporary file in " + folder
          + " for the queries and keys that recompute maps on demand: " + e.getMessage());
    }
  }

  /** A stored array: where its float32 values start in the file, and its shape (row-major). */
  public record Region(SpillFile file, long offset, int[] shape) {

    public int dim(int i) {
      return shape[i];
    }

    /** {@code count} values from flat index {@code from}, read back from the file. */
    public float[] read(long from, int count) {
      return file.read(offset + from * Float.BYTES, count);
    }
  }

  /** Appends {@code a}'s values (float32, row-major) and says where they are. */
  synchronized Region append(NDArray a) {
    long[] s = a.getShape().getShape();
    int[] shape = new int[s.length];
    for (int i = 0; i < s.length; i++) {
      shape[i] = Math.toIntExact(s[i]);
    }
    ByteBuffer bytes = a.toByteBuffer().order(ByteOrder.nativeOrder());
    long at = end;
    try {
      long pos = at;
      while (bytes.hasRemaining()) {
        pos += channel.write(bytes, pos);
      }
      end = pos;
    } catch (IOException e) {
      throw new HeadScopeException("Could not write the queries and keys for maps on demand to a temporary file in "
          + folder + ": " + e.getMessage());
    }
    return new Region(this, at, shape);
  }

  private float[] read(long byteOffset, int count) {
    ByteBuffer bytes = ByteBuffer.allocate(count * Float.BYTES).order(ByteOrder.nativeOrder());
    try {
      long pos = byteOffset;
      while (bytes.hasRemaining()) {
        int n = channel.read(bytes, pos);
        if (n < 0) {
          throw new IOException("the file ended early");
        }
        pos += n;
      }
    } catch (IOException e) {
      throw new HeadScopeException("Could not read back the queries and keys for a map on demand: " + e.getMessage());
    }
    float[] out = new float[count];
    bytes.flip();
    bytes.asFloatBuffer().get(out);
    return out;
  }

  /** Asks for a collection and gives the cleaner up to a second to close what it found unreachable. */
  private static void collectUnreachable() {
    System.gc();
    long end = System.nanoTime() + 1_000_000_000L;
    while (OPEN.get() >= COLLECT_ABOVE && System.nanoTime() < end) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The spill files open now (closed ones and collected ones not counted). */
  static int openCount() {
    return OPEN.get();
  }

  /** The bytes written so far. */
  long size() {
    return end;
  }

  @Override
  public void close() {
    closer.clean();
  }
}
