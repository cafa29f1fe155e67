package io.headscope.model.store;

import io.headscope.model.core.HeadScopeException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Output files written whole or not at all, replacing nothing but a regular file.
 *
 * <ul>
 *   <li>The content goes to a hidden temporary file in the target's folder
 *       ({@code .NAME.headscope-PID-N.part}), renamed into place only when complete.
 *   <li>Without overwrite the final step is a hard link, which fails if a file appeared meanwhile: two
 *       runs with the same output never silently lose one result.
 *   <li>Devices, named pipes, sockets, folders and symbolic links are never replaced; a replaced file
 *       keeps its permissions, a new file gets the process's umask.
 *   <li>On SIGINT or SIGTERM an unfinished write stops and its temporary file is deleted; temporaries
 *       left by a killed process (its PID is gone) are swept at the next write into the folder.
 * </ul>
 */
public final class AtomicOutput {
  private static final Pattern OURS = Pattern.compile("\\..+\\.headscope-(\\d+)-\\d+\\.part");
  /** Temporaries named by {@code Files.createTempFile} before PID-named ones existed. */
  private static final Pattern OLD_STYLE = Pattern.compile("\\..+\\.\\d{6,}\\.part");
  private static final long PID = ProcessHandle.current().pid();
  private static final AtomicLong COUNTER = new AtomicLong();
  private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();
  private static volatile boolean shuttingDown;

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(AtomicOutput::onShutdown, "headscope-temp-cleanup"));
  }

  private AtomicOutput() {}

  /**
   * Everything that can be checked before the work: what is at the path, that the folder exists, and
   * that a file can really be created there (a probe file, since root passes permission checks on a
   * read-only mount's folders only to fail at the end).
   */
  public static void check(Path target, boolean overwrite) {
    Path abs = absolute(target);
    refuseWhatCannotBeReplaced(target, abs, overwrite);
    Path dir = abs.getParent();
    Path probe = dir.resolve(".headscope-probe-" + PID + "-" + COUNTER.incrementAndGet());
    try {
      Files.createFile(probe);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot write " + target + ": " + describeFolderProblem(dir, e) + ".");
    } finally {
      try {
        Files.deleteIfExists(probe);
      } catch (IOException ignored) {
        // an empty hidden probe is harmless
      }
    }
  }

  /** Writes {@code target} atomically (see the class comment). */
  public static void write(Path target, boolean overwrite, SafeFiles.Content content) {
    Path abs = absolute(target);
    refuseWhatCannotBeReplaced(target, abs, overwrite);
    Path dir = abs.getParent();
    sweepStaleTemporaries(dir);
    Path temp = dir.resolve("." + abs.getFileName() + ".headscope-" + PID + "-" + COUNTER.incrementAndGet() + ".part");
    LIVE.add(temp);
    try {
      Files.createFile(temp); // default permissions: the umask decides, as for any new file
      if (overwrite && Files.isRegularFile(abs, LinkOption.NOFOLLOW_LINKS)) {
        keepPermissions(abs, temp);
      }
      try (OutputStream out = new StopsOnShutdown(new java.io.BufferedOutputStream(Files.newOutputStream(temp)))) {
        content.writeTo(out);
      }
      refuseWhatCannotBeReplaced(target, abs, overwrite); // again: something may have appeared meanwhile
      if (overwrite) {
        try {
          Files.move(temp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temp, abs, StandardCopyOption.REPLACE_EXISTING);
        }
      } else {
        publishWithoutReplacing(temp, abs, target);
      }
    } catch (IOException e) {
      throw new HeadScopeException("Cannot write " + target + ": " + describe(e) + "; nothing was written.", e);
    } finally {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException ignored) {
        // swept at the next write into this folder
      } finally {
        LIVE.remove(temp);
      }
    }
  }

  /** What is at a path, in words, or null when nothing is. Symbolic links are not followed. */
  public static String whatIsAt(Path p) {
    if (Files.isSymbolicLink(p)) {
      try {
        return "a symbolic link (to " + Files.readSymbolicLink(p) + ")";
      } catch (IOException e) {
        return "a symbolic link";
      }
    }
    if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
      return "a folder";
    }
    if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
      return "a regular file";
    }
    try {
      int type = ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 0170000;
      return switch (type) {
        case 0020000 -> "a character device";
        case 0060000 -> "a block device";
        case 0010000 -> "a named pipe (FIFO)";
        case 0140000 -> "a socket";
        default -> "a special file";
      };
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return "a special file";
    }
  }

  private static Path absolute(Path target) {
    if (target.toString().isBlank()) {
      throw new HeadScopeException("The output file name is empty; give a file name.");
    }
    return target.toAbsolutePath().normalize();
  }

  private static void refuseWhatCannotBeReplaced(Path target, Path abs, boolean overwrite) {
    String what = whatIsAt(abs);
    if ("a folder".equals(what)) {
      throw new HeadScopeException(target + " is a folder; give a file name.");
    }
    if (what != null && !what.equals("a regular file")) {
      throw new HeadScopeException(target + " is " + what + "; HeadScope writes only regular files and "
          + "never replaces anything else: give another file name.");
    }
    if (what != null && !overwrite) {
      throw new HeadScopeException(target + " already exists; use --force to overwrite it.");
    }
    Path dir = abs.getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new HeadScopeException("Cannot write " + target + ": the folder " + dir + " does not exist.");
    }
  }

  /** The final step without --force: a hard link fails if the name was taken meanwhile. */
  private static void publishWithoutReplacing(Path temp, Path abs, Path target) throws IOException {
    try {
      Files.createLink(abs, temp);
    } catch (FileAlreadyExistsException e) {
      throw new HeadScopeException(target + " already exists (another run wrote it meanwhile); use --force to "
          + "overwrite it. Nothing was written.");
    } catch (UnsupportedOperationException | java.nio.file.FileSystemException e) {
      if (e instanceof FileAlreadyExistsException) {
        throw e;
      }
      // a file system without hard links: a rename that refuses an existing file (checked just before)
      Files.move(temp, abs);
    }
  }

  private static void keepPermissions(Path from, Path to) {
    try {
      Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from, LinkOption.NOFOLLOW_LINKS));
    } catch (IOException | UnsupportedOperationException ignored) {
      // not a POSIX file system: the default permissions stand
    }
  }

  /**
   * Deletes temporaries in {@code dir} whose writer is gone: ours name their process, which must no
   * longer run (or have started after the file was last written, when its PID was reused); older ones
   * must predate this process.
   */
  static void sweepStaleTemporaries(Path dir) {
    long myStart = ProcessHandle.current().info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, ".*.part")) {
      for (Path p : files) {
        String name = p.getFileName().toString();
        Matcher m = OURS.matcher(name);
        boolean stale;
        if (m.matches()) {
          long pid = Long.parseLong(m.group(1));
          stale = pid != PID && !runningSince(pid, lastModified(p));
        } else {
          stale = OLD_STYLE.matcher(name).matches() && lastModified(p) < myStart;
        }
        if (stale && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // best effort: a leftover hidden file does no harm
    }
  }

  /** Whether process {@code pid} runs now and was already running when a file was written at {@code millis}. */
  private static boolean runningSince(long pid, long millis) {
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .map(h -> h.info().startInstant().map(s -> s.toEpochMilli() <= millis).orElse(true))
        .orElse(false);
  }

  private static long lastModified(Path p) {
    try {
      return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis();
    } catch (IOException e) {
      return FileTime.fromMillis(Long.MAX_VALUE).toMillis();
    }
  }

  private static void onShutdown() {
    shuttingDown = true;
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!LIVE.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20); // writers notice at their next write and delete their own temporary
      } catch (InterruptedException e) {
        break;
      }
    }
    for (Path p : LIVE) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException ignored) {
        // swept at the next write into this folder
      }
    }
  }

  private static String describeFolderProblem(Path dir, IOException e) {
    String m = String.valueOf(e.getMessage());
    if (m.contains("Read-only file system")) {
      return "the folder " + dir + " is on a read-only file system";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "the folder " + dir + " is not writable (permission denied)";
    }
    if (m.contains("No space left")) {
      return "the disk holding " + dir + " is full";
    }
    return "cannot create a file in " + dir + " (" + m + ")";
  }

  static String describe(IOException e) {
    String m = e.getMessage();
    if (m != null && m.contains("No space left")) {
      return "the disk is full";
    }
    if (m != null && m.contains("Read-only file system")) {
      return "the folder is on a read-only file system";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof InterruptedIOException) {
      return "HeadScope was stopped";
    }
    return m == null ? e.getClass().getSimpleName() : m;
  }

  /** Stops a write at the next call once the process is shutting down (SIGINT, SIGTERM). */
  private static final class StopsOnShutdown extends FilterOutputStream {
    StopsOnShutdown(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      check();
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      check();
      out.write(b, off, len);
    }

    private static void check() throws InterruptedIOException {
      if (shuttingDown) {
        throw new InterruptedIOException("HeadScope is shutting down");
      }
    }
  }
}
